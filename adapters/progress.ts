/**
 * Progress reporting for long jobs (CLI commands, evaluation runs, benchmarks): a redrawn bar (count, rate, ETA) on a TTY,
 * plain log lines (at most one every `logEveryMs`) otherwise.
 */
export interface ProgressOptions {
  label: string;
  total: number;
  unit?: string;
  stream?: NodeJS.WriteStream | { isTTY?: boolean; write(s: string): boolean };
  logEveryMs?: number;
}

export class Progress {
  private done = 0;
  /** Count and time of the first tick: the rate is measured from there (work done before it took unknown time). */
  private first: { done: number; at: number } | undefined;
  private lastDraw = 0;
  private extra = "";
  /** The count and status of the last line drawn (finish draws again only if they changed). */
  private drawn: { done: number; extra: string } | undefined;
  private readonly stream: NonNullable<ProgressOptions["stream"]>;

  constructor(private readonly options: ProgressOptions) {
    this.stream = options.stream ?? process.stderr;
  }

  /** Advance by `n` and optionally set a trailing status text (e.g. "loss 0.52"). */
  tick(n = 1, status?: string): void {
    this.done += n;
    if (status !== undefined) this.extra = status;
    const now = performance.now();
    this.first ??= { done: this.done, at: now };
    const tty = Boolean(this.stream.isTTY);
    const every = tty ? 100 : (this.options.logEveryMs ?? 5000);
    if (now - this.lastDraw >= every || this.done >= this.options.total) {
      this.lastDraw = now;
      this.draw(tty);
    }
  }

  /** Set an absolute count. */
  update(done: number, status?: string): void {
    this.tick(done - this.done, status);
  }

  /** Draw the final state (off a TTY only if it was not the last line already printed) and end the bar. */
  finish(status?: string): void {
    if (status !== undefined) this.extra = status;
    const tty = Boolean(this.stream.isTTY);
    if (tty || this.drawn?.done !== this.done || this.drawn.extra !== this.extra) this.draw(tty);
    if (tty) this.stream.write("\n");
  }

  line(): string {
    const { label, total, unit = "items" } = this.options;
    const secs = this.first ? (performance.now() - this.first.at) / 1000 : 0;
    const counted = this.first ? this.done - this.first.done : 0;
    // Measured over the ticks after the first, so a first tick that lands right after construction (the first epoch
    // done) does not give "41883 epochs/s".
    const rate = secs > 0 && counted > 0 ? counted / secs : NaN;
    const eta = rate > 0 ? Math.max(0, (total - this.done) / rate) : NaN;
    const pct = total > 0 ? Math.min(1, this.done / total) : 1;
    return `${label} ${this.done}/${total} ${(pct * 100).toFixed(0)}% ${formatRate(rate, unit)} ETA ${formatSeconds(eta)}${this.extra ? ` ${this.extra}` : ""}`;
  }

  private draw(tty: boolean): void {
    this.drawn = { done: this.done, extra: this.extra };
    if (tty) {
      const pct = this.options.total > 0 ? Math.min(1, this.done / this.options.total) : 1;
      const width = 24;
      const filled = Math.round(pct * width);
      this.stream.write(`\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${this.line()}\x1b[K`);
    } else {
      this.stream.write(`${this.line()}\n`);
    }
  }
}

/**
 * A rate in the units that read well: "12.3 items/s" when at least one a second, "4.2 s/epoch" when slower, "--"
 * before there is anything to measure.
 */
export function formatRate(perSecond: number, unit: string): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return `-- ${unit}/s`;
  if (perSecond >= 1) return `${perSecond.toFixed(perSecond >= 100 ? 0 : 1)} ${unit}/s`;
  return `${(1 / perSecond).toFixed(1)} s/${singular(unit)}`;
}

/** "epochs" -> "epoch", "batches" -> "batch", "items" -> "item". */
function singular(unit: string): string {
  if (/(ch|sh|x|ss)es$/.test(unit)) return unit.slice(0, -2);
  return unit.endsWith("s") ? unit.slice(0, -1) : unit;
}

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return "--";
  if (s < 60) return `${s.toFixed(0)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(Math.round(s % 60)).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}
