/**
 * A latency histogram: HDR (hdr-histogram-js), integer microseconds, 3 significant digits, values
 * from 1 µs up (it grows as needed). Values are given and read in milliseconds. It serialises
 * losslessly (compressed base64), so shards of a run merge to exactly the single-process result.
 */
import * as hdr from 'hdr-histogram-js';

export interface HistogramSummary {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

export class MsHistogram {
  private constructor(private readonly h: hdr.Histogram) {}

  static create(): MsHistogram {
    return new MsHistogram(hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 2, numberOfSignificantValueDigits: 3, autoResize: true, useWebAssembly: false }));
  }

  static decode(encoded: string): MsHistogram {
    const h = hdr.decodeFromCompressedBase64(encoded, 32, false);
    h.autoResize = true;
    return new MsHistogram(h);
  }

  /** Records one value; negatives (a clock read a hair early) count as 0, which HDR needs. */
  recordMs(ms: number): void {
    this.h.recordValue(Math.max(0, Math.round(ms * 1000)));
  }

  get count(): number {
    return this.h.totalCount;
  }

  /** The value at percentile p (0–100), in ms; NaN when empty. */
  percentileMs(p: number): number {
    return this.count === 0 ? Number.NaN : this.h.getValueAtPercentile(p) / 1000;
  }

  /** The value at 1-based rank r of the sorted sample (HDR precision), in ms. */
  rankMs(rank: number): number {
    return this.percentileMs((100 * rank) / this.count);
  }

  /** Adds every value of `other` (shards, windows into phases). */
  add(other: MsHistogram): void {
    this.h.add(other.h);
  }

  encode(): string {
    return hdr.encodeIntoCompressedBase64(this.h);
  }

  summary(): HistogramSummary {
    const empty = this.count === 0;
    return {
      count: this.count,
      p50: this.percentileMs(50),
      p90: this.percentileMs(90),
      p95: this.percentileMs(95),
      p99: this.percentileMs(99),
      // From the buckets, like every percentile (3 significant digits): the exact maximum does not
      // survive encoding, and a merged shard result must equal the single-process one.
      max: this.percentileMs(100),
      mean: empty ? Number.NaN : this.h.mean / 1000,
    };
  }
}
