import { randomInt } from 'node:crypto';
import type { Config } from '../config/config.js';
import { checkInterval, parseBounds } from '../config/interval.js';
import { runBackfill } from '../crawl/runs/run-backfill.js';
import type { RunDeps } from '../crawl/runs/run-deps.js';
import { runSync } from '../crawl/runs/run-sync.js';
import { runVerify } from '../crawl/runs/run-verify.js';
import { InputError } from '../errors.js';
import type { OnDemandEnding, RunRequest } from '../daemon/on-demand-runs.js';
import { syncJson } from './commands/sync.js';
import { verifyJson } from './commands/verify.js';

/**
 * A run `POST /runs` asked for, checked now and started later with the
 * daemon's own dependencies (its buckets, commit queue and leases), as its
 * scheduled runs are. `from`/`to` are checked as the flags of the command are.
 */
export function onDemandRun(
  config: Config,
  deps: RunDeps,
  request: RunRequest,
  runId: string,
  nowSeconds: number,
): () => Promise<OnDemandEnding> {
  const text = (value: string | number | undefined): string | undefined =>
    value === undefined ? undefined : String(value);
  const { from, to } = parseBounds(
    { from: text(request.from), to: text(request.to) },
    { from: 'from', to: 'to' },
    nowSeconds,
  );
  const accounts = [request.account];
  const resources = config.crawl.resources;
  switch (request.command) {
    case 'sync':
      if (from !== undefined || to !== undefined)
        throw new InputError('BAD_REQUEST', 'a sync takes no from or to: it continues from its checkpoints');
      return async () => {
        const report = await runSync(deps, { runId, accounts, resources, wait: false });
        return { ending: report, report: syncJson(report) };
      };
    case 'backfill': {
      if (from === undefined) throw new InputError('BAD_REQUEST', 'a backfill needs from (ISO 8601 or epoch seconds)');
      const interval = checkInterval(from, to ?? Math.floor(nowSeconds), config.crawl);
      return async () => {
        const report = await runBackfill(deps, { runId, accounts, ...interval, resources, wait: false });
        const { runId: run, items, itemsWritten: written, pages, requests, failedWindows } = report;
        return {
          ending: report,
          report: {
            run,
            items,
            written,
            pages,
            requests,
            failedWindows: failedWindows.length,
            error: report.error?.message ?? null,
          },
        };
      };
    }
    case 'verify':
      return async () => {
        const seed = String(randomInt(2 ** 31));
        const report = await runVerify(deps, {
          runId,
          accounts,
          resources,
          budget: config.verify.budget,
          seed,
          from,
          to,
          repair: false,
          wait: false,
        });
        // A partial verify checked what its budget held: not a failure.
        const status = report.status === 'partial' ? 'succeeded' : report.status;
        return { ending: { status, error: report.error, runId }, report: verifyJson(report) };
      };
  }
}
