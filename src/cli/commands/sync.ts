import { refreshCatalog, type CatalogRefreshOutcome } from '../../crawl/catalog-refresh.js';
import { sync } from '../../crawl/sync.js';
import { FatalError, InterruptedError } from '../../errors.js';
import { EXIT, type CliCommand } from '../command.js';
import { bindAccounts, crawlContext, requestsOf, selectAccounts } from '../runtime.js';
import { withRun } from '../with-run.js';
import { withResources } from './crawl-options.js';
import { leaseRequest, withLeaseOptions, type LeaseArgs } from './lease-options.js';

interface SyncArgs extends LeaseArgs {
  since?: string;
  resources?: string;
}

export const syncCommand: CliCommand<SyncArgs> = {
  command: 'sync',
  describe:
    'incremental: from the high-water mark minus the overlap to now, then refresh non-final sessions; v2 accounts also refresh the catalog tables',
  builder: (yargs) =>
    withLeaseOptions(withResources(yargs)).option('since', {
      type: 'string',
      describe: 'where the first sync of an empty target starts: ISO 8601 or epoch seconds [env IVS_SINCE] (default: crawl.since)',
    }),
  run: async ({ args, io, config: load }) => {
    // --since and --resources are resolved by the loader (flag > env > file): config.crawl.
    const config = load();
    const selected = selectAccounts(config, args.account);
    return withRun('sync', config, io, args.account ?? null, async ({ io, sink, logger, tally }) => {
      const accounts = bindAccounts(config, selected, logger, io);
      const ctx = crawlContext(config, sink, accounts, io, (event) => {
        if (event.type === 'pass-done' || event.type === 'page') logger.debug(event, event.type);
        else logger.info(event, event.type);
      });
      let outcomes;
      try {
        outcomes = await sync(ctx, { resources: config.crawl.resources });
      } finally {
        tally.requests = requestsOf(accounts);
      }
      tally.itemsWritten = outcomes.reduce((n, o) => n + o.incremental.written, 0);
      if (outcomes.some((o) => o.incremental.interrupted) || io.signal.aborted) {
        throw new InterruptedError('sync interrupted after committing the pages in flight; the next sync continues from there');
      }
      // The catalog belongs to v2 only; it runs after the sessions so that its
      // outage (the service answers 503 while catalog data is unavailable) can
      // never hold back or fail the session sync.
      const catalogs: CatalogRefreshOutcome[] = [];
      try {
        for (const account of accounts.filter((a) => a.client.apiVersion === '2')) {
          const outcome = await refreshCatalog({ account: account.config.name, client: account.client, sink, clock: io.clock });
          for (const failure of outcome.failures) logger.warn({ account: outcome.account, failure }, 'catalog not refreshed');
          for (const problem of outcome.problems) logger.warn({ account: outcome.account, problem }, 'catalog entry skipped');
          catalogs.push(outcome);
        }
      } finally {
        tally.requests = requestsOf(accounts);
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
        io.stdout.write(`${JSON.stringify({ requests: tally.requests, outcomes: report, catalogs })}\n`);
      } else {
        for (const r of report) {
          io.stdout.write(
            `sync ${r.account}/${r.resource}: ${r.items} items (${r.written} new or changed), refreshed ${r.refreshRepaged} windows + ${r.refreshFetched} sessions, ${r.sealed} windows sealed\n`,
          );
        }
        for (const c of catalogs) io.stdout.write(`${catalogLine(c)}\n`);
        io.stdout.write(`${tally.requests} requests\n`);
      }
      return EXIT.ok;
    }, leaseRequest(args, selected));
  },
};

function catalogLine(outcome: CatalogRefreshOutcome): string {
  const { stored } = outcome;
  const parts: string[] = [];
  if (stored.catalog_brands !== undefined) {
    parts.push(`${stored.catalog_brands} brands, ${stored.catalog_materials ?? 0} materials, ${stored.catalog_detail_fields ?? 0} detail fields`);
  }
  if (stored.catalog_categories !== undefined) parts.push(`${stored.catalog_categories} categories`);
  const head = `catalog ${outcome.account}: ${parts.length > 0 ? parts.join(', ') : 'nothing refreshed'}`;
  return outcome.failures.length === 0 ? head : `${head}; WARNING not refreshed: ${outcome.failures.join('; ')}`;
}
