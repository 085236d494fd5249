/**
 * Seeded randomness. Every random choice in loadproof (arrivals, payloads, the mock's latency
 * model and faults) draws from an Rng built from a seed, so a run can be repeated exactly.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
}

/** sfc32 seeded through splitmix32: small, fast, and good enough for simulation. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const splitmix = (): number => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  return {
    next(): number {
      const t = (((a + b) >>> 0) + d) >>> 0;
      d = (d + 1) >>> 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) >>> 0;
      c = ((c << 21) | (c >>> 11)) >>> 0;
      c = (c + t) >>> 0;
      return t / 4294967296;
    },
  };
}

/** Standard normal variate (Box–Muller). */
export function nextNormal(rng: Rng): number {
  const u1 = Math.max(rng.next(), Number.MIN_VALUE);
  const u2 = rng.next();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** Log-normal multiplier with median 1: exp(sigma × N(0,1)). */
export function nextLogNormalFactor(rng: Rng, sigma: number): number {
  return sigma === 0 ? 1 : Math.exp(sigma * nextNormal(rng));
}

/** Exponential variate with the given mean. */
export function nextExponential(rng: Rng, mean: number): number {
  return -Math.log(1 - rng.next()) * mean;
}

/** Integer in [min, max], both included. */
export function nextInt(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng.next() * (max - min + 1));
}

/** One element of a non-empty list. */
export function pick<T>(rng: Rng, items: readonly T[]): T {
  const item = items[Math.floor(rng.next() * items.length)];
  if (item === undefined) throw new RangeError('pick: the list is empty');
  return item;
}
