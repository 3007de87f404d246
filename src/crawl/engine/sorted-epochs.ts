/** The index of the first of the ascending `epochs` that `below` is false for (their length when none is). */
function firstNotBelow(epochs: ArrayLike<number>, below: (epoch: number) => boolean): number {
  let lo = 0;
  let hi = epochs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (below(epochs[mid]!)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The index of the first of the ascending `epochs` at or after `x` (their length when none is), by binary search. */
export function firstAtOrAfter(epochs: ArrayLike<number>, x: number): number {
  return firstNotBelow(epochs, (epoch) => epoch < x);
}

/** The index of the first of the ascending `epochs` after `x` (their length when none is), by binary search. */
export function firstAfter(epochs: ArrayLike<number>, x: number): number {
  return firstNotBelow(epochs, (epoch) => epoch <= x);
}
