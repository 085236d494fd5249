/**
 * A latency histogram: HDR (hdr-histogram-js), integer microseconds, 3 significant digits, values
 * from 1 µs up (it grows as needed). Values are given and read in milliseconds. It serialises
 * losslessly (compressed base64), so shards of a run merge to exactly the single-process result.
 * A rank is found on the integer cumulative counts of the recorded buckets, never through a
 * percentage in floating point (100·r/n landed one rank high for thousands of (n, r) pairs).
 */
import 'hdr-histogram-js/dist/JsHistogram.encoding.js';

import { inflateSync } from 'node:zlib';

// The pure-JS parts only, not the package's index: that loads its WebAssembly build too (with pako and a
// 40 KB base64 module), about 4 MiB of a run's memory for nothing. The encoding module adds
// JsHistogram.decode and encodeIntoCompressedBase64 (deflate through node:zlib).
import { JsHistogram } from 'hdr-histogram-js/dist/JsHistogram.js';
import { constructorFromBucketSize } from 'hdr-histogram-js/dist/JsHistogramFactory.js';

export interface HistogramSummary {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** The recorded buckets in order: each bucket's top (µs) and the count of values up to and in it. */
interface Buckets {
  readonly topsUs: readonly number[];
  readonly cumulative: readonly number[];
  /** Σ count × the bucket's median value (µs): HDR's own mean, from the same walk. */
  readonly sumUs: number;
}

/** HDR's V2 compressed encoding: a cookie, the compressed length, then the zlib-deflated V2 encoding. */
const V2_COMPRESSED_COOKIE_BASE = 0x1c849304;

/** An empty histogram of 32-bit counts (HDR's default), values from 1 µs, 3 significant digits (hdr.build's). */
function newHistogram(autoResize: boolean): JsHistogram {
  const h = new (constructorFromBucketSize(32))(1, 2, 3);
  h.autoResize = autoResize;
  return h;
}

/** hdr.decodeFromCompressedBase64(encoded, 32, false), without the package's index. */
function decodeCompressed(encoded: string): JsHistogram {
  const text = encoded.trim();
  if (text.length % 4 !== 0) throw new Error('Invalid string. Length must be a multiple of 4');
  const data = Buffer.from(text, 'base64');
  if (data.length < 8 || (data.readInt32BE(0) & ~0xf0) !== V2_COMPRESSED_COOKIE_BASE)
    throw new Error('Encoding not supported, only V2 is supported');
  const length = data.readInt32BE(4);
  if (length <= 0 || 8 + length > data.length)
    throw new Error(`compressed length ${length}, but ${data.length - 8} bytes follow`);
  // Bounded: a histogram read back from a file is never inflated past what loadproof's own could be.
  return JsHistogram.decode(inflateSync(data.subarray(8, 8 + length), { maxOutputLength: 16 * 1024 * 1024 }), 32, 0);
}

/** Nearest rank of percentile p (0 < p ≤ 100) among n values, as HDR defines it (the ⌈p·n/100⌉-th smallest). */
function nearestRank(p: number, n: number): number {
  // p·n is exact for whole p; the rounding to 12 digits keeps a fractional p from landing one rank high.
  return Math.min(n, Math.max(1, Math.ceil(Number(((p * n) / 100).toPrecision(12)))));
}

/** The first bucket whose cumulative count reaches the rank (binary search). */
function bucketOfRank(cumulative: readonly number[], rank: number): number {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cumulative[mid]! >= rank) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export class MsHistogram {
  /** Built on the first rank asked, dropped on every change. */
  private buckets: Buckets | undefined;

  private constructor(private readonly h: JsHistogram) {}

  static create(): MsHistogram {
    return new MsHistogram(newHistogram(true));
  }

  /** Why `encoded` is not a histogram this class can decode, or null (a file read back is checked with it). */
  static whyNotDecodable(encoded: string): string | null {
    try {
      MsHistogram.decode(encoded);
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }

  static decode(encoded: string): MsHistogram {
    const h = decodeCompressed(encoded);
    h.autoResize = true;
    return new MsHistogram(h);
  }

  /** Records one value; negatives (a clock read a hair early) count as 0, which HDR needs. */
  recordMs(ms: number): void {
    this.h.recordValue(Math.max(0, Math.round(ms * 1000)));
    this.buckets = undefined;
  }

  get count(): number {
    return this.h.totalCount;
  }

  /**
   * The value at percentile p (0 < p ≤ 100), in ms; NaN when empty. Nearest rank, as HDR defines it
   * (the ⌈p·n/100⌉-th smallest), found on the cached buckets: HDR's own lookup walks every bucket per
   * call, which made judging a long run's windows take seconds.
   */
  percentileMs(p: number): number {
    if (this.count === 0) return Number.NaN;
    return this.rankMs(nearestRank(p, this.count));
  }

  /** The value at 1-based rank r of the sorted sample (HDR precision: the top of its bucket), in ms; NaN when empty. */
  rankMs(rank: number): number {
    if (this.count === 0) return Number.NaN;
    if (!Number.isInteger(rank) || rank < 1 || rank > this.count)
      throw new RangeError(`rank ${rank} outside 1–${this.count}`);
    const { topsUs, cumulative } = this.recordedBuckets();
    return topsUs[bucketOfRank(cumulative, rank)]! / 1000;
  }

  /** Adds every value of `other` (shards, windows into phases). */
  add(other: MsHistogram): void {
    this.h.add(other.h);
    this.buckets = undefined;
  }

  /**
   * Walks HDR's integer counts once, bucket by bucket, as its recorded-values iterator does (each
   * bucket reported at its highest equivalent value) but about 10 × faster: a rank costs a binary search.
   */
  private recordedBuckets(): Buckets {
    if (this.buckets !== undefined) return this.buckets;
    const topsUs: number[] = [];
    const cumulative: number[] = [];
    let total = 0;
    let sumUs = 0;
    for (let i = 0; i < this.h.countsArrayLength; i++) {
      const count = this.h.getCountAtIndex(i);
      if (count === 0) continue;
      total += count;
      const value = this.h.valueFromIndex(i);
      topsUs.push(this.h.highestEquivalentValue(value));
      cumulative.push(total);
      sumUs += this.h.medianEquivalentValue(value) * count;
    }
    this.buckets = { topsUs, cumulative, sumUs };
    return this.buckets;
  }

  encode(): string {
    return this.h.encodeIntoCompressedBase64();
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
      mean: empty ? Number.NaN : this.recordedBuckets().sumUs / this.count / 1000,
    };
  }
}

/** HDR's bucket arithmetic (pure: it reads no counts), shared by every SparseMsHistogram. */
const GEOMETRY = newHistogram(true);

/**
 * Sparse HDR buckets, flat: [lowestUs, count, lowestUs, count, …] of the buckets that hold a value,
 * ascending. One small array of small integers: the cheapest form V8 has for a few dozen buckets.
 */
export type SparseBuckets = number[];

/**
 * Records one value (negatives count as 0, as in MsHistogram) into sparse buckets, and returns them:
 * a new two-element array for the first value (an empty array's first push reserves 17 slots).
 */
export function recordSparse(buckets: SparseBuckets | undefined, ms: number): SparseBuckets {
  const key = GEOMETRY.lowestEquivalentValue(Math.max(0, Math.round(ms * 1000)));
  if (buckets === undefined || buckets.length === 0) return [key, 1];
  // The first pair whose bucket is at or above the key (binary search over the pairs).
  let lo = 0;
  let hi = buckets.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (buckets[2 * mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  if (buckets[2 * lo] === key) buckets[2 * lo + 1]!++;
  else buckets.splice(2 * lo, 0, key, 1);
  return buckets;
}

/**
 * The same statistics as MsHistogram, bit for bit, read from sparse buckets, where HDR keeps
 * a counts array of every bucket up to the largest value (about 45 KB per histogram at 1 s). For
 * the timeline's windows: a 24-hour soak has 8,640 of them, most holding a few dozen values.
 */
export class SparseMsHistogram {
  /** A view of `buckets` (recorded by recordSparse; not copied); empty without. */
  constructor(private readonly buckets?: SparseBuckets) {}

  get count(): number {
    let total = 0;
    for (let i = 1; i < (this.buckets?.length ?? 0); i += 2) total += this.buckets![i]!;
    return total;
  }

  /** Buckets that hold at least one value: what this costs in memory. */
  get bucketCount(): number {
    return (this.buckets?.length ?? 0) / 2;
  }

  /** As MsHistogram.percentileMs. */
  percentileMs(p: number): number {
    const total = this.count;
    if (total === 0) return Number.NaN;
    const rank = nearestRank(p, total);
    const b = this.buckets!;
    let cumulative = 0;
    for (let i = 0; i < b.length; i += 2) {
      cumulative += b[i + 1]!;
      if (cumulative >= rank) return GEOMETRY.highestEquivalentValue(b[i]!) / 1000;
    }
    throw new Error('unreachable: the counts add up to the total');
  }

  /** As MsHistogram.summary. */
  summary(): HistogramSummary {
    const total = this.count;
    let sumUs = 0;
    const b = this.buckets ?? [];
    for (let i = 0; i < b.length; i += 2) sumUs += GEOMETRY.medianEquivalentValue(b[i]!) * b[i + 1]!;
    return {
      count: total,
      p50: this.percentileMs(50),
      p90: this.percentileMs(90),
      p95: this.percentileMs(95),
      p99: this.percentileMs(99),
      max: this.percentileMs(100),
      mean: total === 0 ? Number.NaN : sumUs / total / 1000,
    };
  }
}
