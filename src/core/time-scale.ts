/**
 * The time scale k (`--time-scale` of run, plan, check, deid, probe and mock): model time = k × wall time. Below 1
 * a run would take longer than real time (1e-300 makes every wait astronomical); above 1000 timer resolution
 * (about 1 ms of wall time, k ms of model time) swamps the latencies measured. k is checked once, where it comes
 * in (a flag, a run folder), as a TimeScale; every conversion between wall and model time goes through it.
 */
import { UsageError } from './errors.js';

/** The range of k, inclusive. */
const TIME_SCALE = { min: 1, max: 1000 } as const;

export class TimeScale {
  /** Real time: k = 1, as every run against a real environment is. */
  static readonly REAL = new TimeScale(1);

  private constructor(readonly k: number) {}

  /**
   * k when it is a finite number in {@link TIME_SCALE}; otherwise a UsageError naming `field`, the range and the value.
   */
  static of(k: number, field = '--time-scale'): TimeScale {
    if (!(k >= TIME_SCALE.min && k <= TIME_SCALE.max)) {
      throw new UsageError(`${field}: expected a number from ${TIME_SCALE.min} to ${TIME_SCALE.max}, got ${String(k)}`);
    }
    return k === 1 ? TimeScale.REAL : new TimeScale(k);
  }

  /** Model ms that `wallMs` of wall time stands for. */
  toModelMs(wallMs: number): number {
    return wallMs * this.k;
  }

  /** Wall ms that `modelMs` of model time takes. */
  toWallMs(modelMs: number): number {
    return modelMs / this.k;
  }

  /** A rate per unit of model time as a rate per the same unit of wall time (k times as many). */
  toWallRate(perModelUnit: number): number {
    return perModelUnit * this.k;
  }

  /** A rate per unit of wall time as a rate per the same unit of model time. */
  toModelRate(perWallUnit: number): number {
    return perWallUnit / this.k;
  }

  get isReal(): boolean {
    return this.k === 1;
  }
}
