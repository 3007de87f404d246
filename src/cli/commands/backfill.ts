import { parseTime } from '../../config/parse-time.js';
import type { CrawlEvent } from '../../crawl/crawl-deps.js';
import { runBackfill } from '../../crawl/run-backfill.js';
import { checkWindowCount } from '../../crawl/windows.js';
import { InputError } from '../../errors.js';
import { EXIT, type CliCommand } from '../command.js';
import { Progress } from '../progress.js';
import { loggerFor, newRunId, selectAccounts, withRunDeps } from '../runtime.js';
import { withResources } from './crawl-options.js';
import { leaseTtl, withLeaseOptions, type LeaseArgs } from './lease-options.js';

interface BackfillArgs extends LeaseArgs {
  from: string;
  to: string;
  resources?: string;
}

export const backfillCommand: CliCommand<BackfillArgs> = {
  command: 'backfill',
  describe: 'crawl a closed historical interval; re-run the same command to resume after a crash or Ctrl-C',
  builder: (yargs) =>
    withLeaseOptions(withResources(yargs))
      .option('from', { type: 'string', demandOption: true, describe: 'start: ISO 8601 date-time or epoch seconds' })
      .option('to', { type: 'string', demandOption: true, describe: 'end (inclusive): ISO 8601 date-time or epoch seconds' }),
  run: async ({ args, io, config: load }) => {
    const config = load();
    const now = io.clock() / 1000;
    const from = parseTime(args.from, { kind: 'flag', name: '--from' }, now);
    const to = parseTime(args.to, { kind: 'flag', name: '--to' }, now);
    if (to < from) throw new InputError('BAD_INTERVAL', `${args.to} is before --from ${args.from}`, { source: { kind: 'flag', name: '--to' }, value: args.to });
    // Refused here, before the target is opened or a run recorded; the crawl checks again for its own callers.
    checkWindowCount(from, to, config.crawl);
    const resources = config.crawl.resources;
    const selected = selectAccounts(config, args.account);
    const runId = newRunId();
    const logger = loggerFor(config, io, runId);
    const progress = new Progress({ tty: Boolean(io.stderr.isTTY), stream: io.stderr, logger, clock: io.clock });
    const onEvent = (event: CrawlEvent): void => {
      if (event.type === 'backfill-plan') {
        const todo = event.plans.reduce((n, p) => n + p.todo, 0);
        const resumed = event.plans.reduce((n, p) => n + p.resumed, 0);
        logger.debug({ plans: event.plans }, 'backfill plan');
        logger.info({ windows: todo, resumed }, `backfill: ${todo} windows to page (${resumed} resumed)`);
      }
      progress.onEvent(event);
    };
    let report;
    try {
      report = await withRunDeps(config, io, selected, { runId, logger, ttlSeconds: leaseTtl(args), onEvent, wait: args.wait ?? false }, (deps) =>
        runBackfill(deps, { runId, accounts: selected.map((a) => a.name), from, to, resources, wait: args.wait ?? false }),
      );
    } finally {
      progress.stop();
    }
    if (report.failedWindows.length > 0) logger.error({ failed: report.failedWindows }, 'windows failed');
    if (report.error) throw report.error;
    const summary = { run: report.runId, items: report.items, written: report.itemsWritten, pages: report.pages, requests: report.requests, failedWindows: report.failedWindows.length };
    io.stdout.write(config.json ? `${JSON.stringify(summary)}\n` : `backfill complete: ${summary.items} items in ${summary.pages} pages, ${summary.requests} requests\n`);
    return EXIT.ok;
  },
};
