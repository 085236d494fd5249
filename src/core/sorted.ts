/** Binary searches over ascending arrays of numbers. */

/** How many values are < x (the index of the first value ≥ x). */
export function countBelow(sorted: ArrayLike<number>, x: number): number {
  return search(sorted, (v) => v < x);
}

/** How many values are ≤ x (the index of the first value > x). */
export function countAtMost(sorted: ArrayLike<number>, x: number): number {
  return search(sorted, (v) => v <= x);
}

/** The length of the prefix whose values satisfy `before` (which must hold on a prefix only). */
function search(sorted: ArrayLike<number>, before: (v: number) => boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(sorted[mid]!)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
