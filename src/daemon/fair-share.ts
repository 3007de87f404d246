/**
 * Accounts a daemon claims first in a tick when `liveDaemons` share the
 * target: an even split, rounded up so that together they cover them all.
 * The rest is claimed after a grace period by whoever has capacity, so an
 * account is never left behind by a daemon that died since the last count.
 */
export function fairShare(accounts: number, liveDaemons: number): number {
  if (accounts <= 0) return 0;
  return Math.ceil(accounts / Math.max(1, liveDaemons));
}

/**
 * The ttl of an account's tick claim: half the shortest gap between ticks.
 * A claim made in this tick is then still live for every daemon of this
 * tick (clocks agreeing within half a period) and stale at the next one.
 */
export function tickClaimTtlSeconds(shortestGapMs: number): number {
  return Math.max(0.5, shortestGapMs / 2000);
}

/** Fisher–Yates with an injected random source. */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
