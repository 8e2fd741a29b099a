import { afterEach, describe, expect, it, vi } from "vitest";
import { formatRate, Progress } from "../../adapters/progress.js";
import { Sink } from "./sink.js";

afterEach(() => vi.useRealTimers());

describe("progress rates", () => {
  it("reads per second when fast, seconds per unit when slow, and nothing before it can be measured", () => {
    expect(formatRate(1259.4, "items")).toBe("1259 items/s");
    expect(formatRate(2.5, "texts")).toBe("2.5 texts/s");
    expect(formatRate(0.25, "epochs")).toBe("4.0 s/epoch");
    expect(formatRate(0.5, "batches")).toBe("2.0 s/batch");
    expect(formatRate(NaN, "epochs")).toBe("-- epochs/s");
  });

  it("measures from the first tick, so a first epoch reported right after the bar starts is not a huge rate", () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const sink = new Sink();
    const bar = new Progress({ label: "fit", total: 10, unit: "epochs", stream: sink, logEveryMs: 0 });
    bar.update(1); // epoch 1 ended just now (the bar was made on its event)
    expect(sink.text).toContain("-- epochs/s");
    vi.advanceTimersByTime(3000);
    bar.update(2);
    vi.advanceTimersByTime(3000);
    bar.update(3);
    const last = sink.text.trim().split("\n").at(-1)!;
    expect(last).toContain("3.0 s/epoch");
    expect(last).toContain("ETA 21s");
  });
});
