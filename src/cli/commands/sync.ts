import { parseTime } from '../../config/parse-time.js';
import { sync } from '../../crawl/sync.js';
import { FatalError, InterruptedError } from '../../errors.js';
import { EXIT, type CliCommand } from '../command.js';
import { bindAccounts, crawlContext, requestsOf, selectAccounts } from '../runtime.js';
import { withRun } from '../with-run.js';
import { parseResources, withResources } from './crawl-options.js';

interface SyncArgs {
  since?: string;
  resources?: string;
}

export const syncCommand: CliCommand<SyncArgs> = {
  command: 'sync',
  describe: 'incremental: from the high-water mark minus the overlap to now, then refresh non-final sessions',
  builder: (yargs) =>
    withResources(yargs).option('since', {
      type: 'string',
      describe: 'where the first sync of an empty target starts (ISO 8601 or epoch seconds)',
    }),
  run: async ({ args, io, config: load }) => {
    const config = load();
    const since = args.since === undefined ? undefined : parseTime(args.since, '--since');
    const resources = parseResources(args.resources, config.crawl.resources);
    const selected = selectAccounts(config, args.account);
    return withRun('sync', config, io, args.account ?? null, async ({ sink, logger, tally }) => {
      const accounts = bindAccounts(config, selected, logger);
      const ctx = crawlContext(config, sink, accounts, io, (event) => {
        if (event.type === 'pass-done' || event.type === 'page') logger.debug(event, event.type);
        else logger.info(event, event.type);
      });
      let outcomes;
      try {
        outcomes = await sync(ctx, { resources, since });
      } finally {
        tally.requests = requestsOf(accounts);
      }
      tally.itemsWritten = outcomes.reduce((n, o) => n + o.incremental.written, 0);
      if (outcomes.some((o) => o.incremental.interrupted) || io.signal.aborted) {
        throw new InterruptedError('sync interrupted after committing the pages in flight; the next sync continues from there');
      }
      const failed = outcomes.flatMap((o) => o.incremental.failed);
      if (failed.length > 0) {
        throw new FatalError('WINDOWS_FAILED', `${failed.length} window(s) failed (first: ${failed[0]!.error}); the next sync retries them`);
      }
      const report = outcomes.map((o) => ({
        account: o.account,
        resource: o.resource,
        from: o.from,
        to: o.to,
        items: o.incremental.items,
        written: o.incremental.written,
        refreshRepaged: o.refresh.repaged,
        refreshFetched: o.refresh.fetched,
        refreshRequests: o.refresh.cost,
        gone: o.refresh.gone,
        sealed: o.sealed,
      }));
      if (config.json) {
        io.stdout.write(`${JSON.stringify({ requests: tally.requests, outcomes: report })}\n`);
      } else {
        for (const r of report) {
          io.stdout.write(
            `sync ${r.account}/${r.resource}: ${r.items} items (${r.written} new or changed), refreshed ${r.refreshRepaged} windows + ${r.refreshFetched} sessions, ${r.sealed} windows sealed\n`,
          );
        }
        io.stdout.write(`${tally.requests} requests\n`);
      }
      return EXIT.ok;
    });
  },
};
