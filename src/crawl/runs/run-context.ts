import { UserError } from '../../errors.js';
import type { CrawlContext } from '../engine/crawl-context.js';
import type { RunAccount, RunDeps } from './run-deps.js';
import type { RecordRunDeps, RunScope } from './run-recorder.js';

/** The accounts of `deps` that `names` name, in that order. */
export function pickAccounts(deps: Pick<RunDeps, 'accounts'>, names: readonly string[]): RunAccount[] {
  return names.map((name) => {
    const found = deps.accounts.find((a) => a.name === name);
    if (!found) throw new UserError('UNKNOWN_ACCOUNT', `account '${name}' is not one this process serves (known: ${deps.accounts.map((a) => a.name).join(', ')})`);
    return found;
  });
}

/** What the crawl of one run works with: the process's deps, the run's signal and tally, the run's accounts. */
export function runContext(deps: RunDeps, run: RunScope, accounts: readonly string[]): CrawlContext {
  return {
    sink: deps.sink,
    accounts: pickAccounts(deps, accounts),
    crawl: deps.crawl,
    refresh: deps.refresh,
    normalize: deps.normalize,
    clock: deps.clock,
    signal: run.signal,
    onEvent: deps.onEvent,
    commits: deps.commits,
    tally: run.tally,
    runId: run.id,
    claims: deps.claims,
  };
}

export function recorderDeps(deps: RunDeps): RecordRunDeps {
  return { runs: deps.sink, leases: deps.leases, clock: deps.clock, signal: deps.signal };
}
