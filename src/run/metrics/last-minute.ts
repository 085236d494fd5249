/**
 * Counts by the model second they happened in, kept for the last model minute only: a rate a model minute that a
 * scrape reads, whatever the scrape interval. Bounded whether or not anyone scrapes.
 */
export class LastMinute {
  private readonly bySecond = new Map<number, number>();

  /** One more at `atMs` (model ms since the schedule started). */
  add(atMs: number): void {
    const second = Math.floor(atMs / 1000);
    this.bySecond.set(second, (this.bySecond.get(second) ?? 0) + 1);
    if (this.bySecond.size > 120) for (const s of this.bySecond.keys()) if (s < second - 60) this.bySecond.delete(s);
  }

  /** How many a model minute, over the minute before `elapsedMs` (or since the start, when that is shorter). */
  perMinute(elapsedMs: number): number {
    const minuteAgo = Math.floor((elapsedMs - 60_000) / 1000);
    let count = 0;
    for (const [second, n] of this.bySecond) {
      if (second <= minuteAgo) this.bySecond.delete(second);
      else count += n;
    }
    return elapsedMs <= 0 ? 0 : (count * 60_000) / Math.min(60_000, elapsedMs);
  }
}
