import { createHash } from 'node:crypto';

/** A stored window `verify` may page again. */
export interface SampleCandidate {
  /** Stable identity (account, resource, interface, start): the seed's choice depends on it, never on list order. */
  readonly id: string;
  /** Epoch seconds; the sample is spread over these. */
  readonly start: number;
  /** Requests paging it in full should take (its stored sessions, 25 a page, at least 1). */
  readonly cost: number;
}

export interface SamplePick<C extends SampleCandidate> {
  candidate: C;
  /** Requests reserved for it: its cost, or for a partial pick what the budget holds. */
  allowance: number;
  /** The budget holds less than its cost: only what fits is paged. */
  partial: boolean;
}

/** Where a seed puts a candidate in its random order: the same seed and id give the same rank on any machine. */
export function rank(seed: string, id: string): number {
  return createHash('sha256').update(`${seed}\u0000${id}`).digest().readUIntBE(0, 6);
}

const byRank = (seed: string) => (a: SampleCandidate, b: SampleCandidate) =>
  rank(seed, a.id) - rank(seed, b.id) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Which windows a verify pages within `budget` requests, reproducible from
 * `seed`. The history is cut into as many strata of consecutive windows
 * (by time) as the budget affords at the mean cost, and each stratum gives
 * its lowest-ranked window, so that even a small sample reaches from the
 * oldest windows to the newest; strata are taken in rank order while their
 * window fits, then any other window that still fits, in rank order, so a
 * budget that covers the whole history checks all of it. A window is only
 * picked whole; when not even one fits, the first of the strata is picked
 * partial, with the whole budget. Picks come back oldest first.
 */
export function planSample<C extends SampleCandidate>(
  candidates: readonly C[],
  budget: number,
  seed: string,
): Array<SamplePick<C>> {
  if (candidates.length === 0 || !(budget >= 1)) return [];
  const sorted = [...candidates].sort((a, b) => a.start - b.start || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const n = sorted.length;
  const mean = sorted.reduce((sum, c) => sum + c.cost, 0) / n;
  const strata = Math.min(n, Math.max(1, Math.floor(budget / mean)));
  const heads: C[] = [];
  for (let i = 0; i < strata; i++) {
    const stratum = sorted.slice(Math.floor((i * n) / strata), Math.floor(((i + 1) * n) / strata));
    heads.push(stratum.sort(byRank(seed))[0]!);
  }
  heads.sort(byRank(seed));
  const picked = new Set<C>();
  let left = budget;
  const take = (c: C) => {
    if (picked.has(c) || c.cost > left) return;
    picked.add(c);
    left -= c.cost;
  };
  for (const c of heads) take(c);
  for (const c of [...sorted].sort(byRank(seed))) take(c);
  if (picked.size === 0) return [{ candidate: heads[0]!, allowance: budget, partial: true }];
  return sorted
    .filter((c) => picked.has(c))
    .map((candidate) => ({ candidate, allowance: candidate.cost, partial: false }));
}
