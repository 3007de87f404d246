import { parseTime } from '../../config/parse-time.js';
import { backfill } from '../../crawl/backfill.js';
import { checkWindowCount } from '../../crawl/windows.js';
import { FatalError, InputError, InterruptedError } from '../../errors.js';
import { EXIT, type CliCommand } from '../command.js';
import { Progress } from '../progress.js';
import { bindAccounts, crawlContext, requestsOf, selectAccounts } from '../runtime.js';
import { withRun } from '../with-run.js';
import { withResources } from './crawl-options.js';
import { leaseRequest, withLeaseOptions, type LeaseArgs } from './lease-options.js';

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
    return withRun('backfill', config, io, args.account ?? null, async ({ io, sink, logger, tally }) => {
      const accounts = bindAccounts(config, selected, logger, io);
      const progress = new Progress({ tty: Boolean(io.stderr.isTTY), stream: io.stderr, logger, clock: io.clock, requests: () => requestsOf(accounts) });
      const ctx = crawlContext(config, sink, accounts, io, progress.onEvent);
      let outcomes;
      try {
        outcomes = await backfill(ctx, { from, to, resources }, (plans) => {
          const todo = plans.reduce((n, p) => n + p.todo, 0);
          logger.info({ plans }, `backfill: ${todo} windows to page (${plans.reduce((n, p) => n + p.resumed, 0)} resumed)`);
          progress.start(plans.reduce((n, p) => n + p.seconds, 0));
        });
      } finally {
        progress.stop();
        tally.requests = requestsOf(accounts);
      }
      const items = outcomes.reduce((n, o) => n + o.items, 0);
      tally.itemsWritten = outcomes.reduce((n, o) => n + o.written, 0);
      const failed = outcomes.flatMap((o) => o.failed);
      const summary = { items, written: tally.itemsWritten, pages: outcomes.reduce((n, o) => n + o.pages, 0), requests: tally.requests, failedWindows: failed.length };
      if (outcomes.some((o) => o.interrupted)) {
        throw new InterruptedError('backfill interrupted after committing the pages in flight; run the same command again to resume');
      }
      if (failed.length > 0) {
        logger.error({ failed }, 'windows failed');
        throw new FatalError('WINDOWS_FAILED', `${failed.length} window(s) failed (first: ${failed[0]!.error}); run the same command again to retry them`);
      }
      io.stdout.write(config.json ? `${JSON.stringify(summary)}\n` : `backfill complete: ${items} items in ${summary.pages} pages, ${summary.requests} requests\n`);
      return EXIT.ok;
    }, leaseRequest(args, selected));
  },
};
