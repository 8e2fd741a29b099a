/** A bounded map from response or conversation ids to the child that served them: the oldest goes first when full. */
export class RecentIds {
  private readonly map = new Map<string, string>();
  /** @param max - how many ids to keep (a positive integer) */
  constructor(private readonly max: number) {}
  get(id: string | undefined): string | undefined {
    return id === undefined ? undefined : this.map.get(id);
  }
  set(id: string | undefined, child: string): void {
    if (id === undefined) return;
    this.map.delete(id);
    this.map.set(id, child);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }
}
