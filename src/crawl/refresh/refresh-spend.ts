import type { RefreshSpend } from '../../store/sink.js';
import type { RefreshOutcome } from './refresh-non-final.js';

/**
 * A run's refresh budget and spending over its accounts and resources, as
 * `sync_runs` keeps it: the requests the refreshes sent, not what their plans
 * estimated; undefined when no refresh ran (each was skipped).
 */
export function refreshSpend(
  outcomes: ReadonlyArray<{ refresh: Pick<RefreshOutcome, 'budget' | 'requests'> }>,
): RefreshSpend | undefined {
  let budget = 0;
  let spent = 0;
  for (const { refresh } of outcomes) {
    budget += refresh.budget;
    spent += refresh.requests;
  }
  return budget === 0 && spent === 0 ? undefined : { budget, spent };
}

/** What a refresh left of its budget: the requests it saved. */
export function refreshSaved(spend: RefreshSpend): number {
  return Math.max(0, spend.budget - spend.spent);
}
