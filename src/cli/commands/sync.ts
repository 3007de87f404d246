import type { CatalogRefreshOutcome } from '../../crawl/runs/catalog-refresh.js';
import type { CrawlEvent } from '../../crawl/engine/crawl-deps.js';
import { runSync, type SyncReport } from '../../crawl/runs/run-sync.js';
import { InputError } from '../../errors.js';
import { targetSurelyAbsent } from '../../store/target/target-exists.js';
import { USES } from './option-sets.js';
import { EXIT, FINISHING_PAGES, type CliCommand } from '../command.js';
import { loggerFor, selectAccounts, withRunDeps } from '../runtime.js';
import { streamsCappedLine } from '../streams-capped.js';
import { withResources } from './crawl-options.js';
import { leaseTtl, withLeaseOptions, type LeaseArgs } from './lease-options.js';

interface SyncArgs extends LeaseArgs {
  since?: string;
  resources?: string;
}

export const syncCommand: CliCommand<SyncArgs> = {
  command: 'sync',
  onStop: FINISHING_PAGES,
  describe:
    'incremental: from the high-water mark minus the overlap to now, then refresh non-final sessions; v2 ' +
    'accounts also refresh the catalog tables',
  uses: USES.crawl,
  examples: [
    ['$0 sync --since 2024-01-01', 'the first sync of an empty target, from 2024 on'],
    ['*/5 * * * * ivsync sync --json', 'from cron every five minutes, figures as JSON'],
  ],
  builder: (yargs) =>
    withLeaseOptions(withResources(yargs))
      .option('since', {
        type: 'string',
        describe:
          'where the first sync of an empty target starts: ISO 8601 or epoch seconds [env IVS_SINCE] (default: ' +
          'crawl.since)',
      })
      .option('refresh-budget', {
        type: 'number',
        describe:
          'requests one sync spends re-checking non-final sessions, per account [env IVS_REFRESH_BUDGET] ' +
          '(default: refresh.maxRequestsPerRun, else what the pass leaves of refresh.budgetShare of rate x ' +
          'schedule gap)',
      }),
  run: async ({ args, io, config: load, runId: runIdOf }) => {
    // --since and --resources are resolved by the loader (flag > env > file): config.crawl.
    const config = load();
    const selected = selectAccounts(config, args.account);
    // A usage mistake is found before the target is touched: no directory, no file, no migration for it.
    if (config.crawl.since === undefined && targetSurelyAbsent(config.db)) {
      const problem =
        `the first sync needs --since T (or crawl.since in the config): ${config.db} does not exist yet, ` +
        'so it has no checkpoint to continue from';
      throw new InputError('NEEDS_SINCE', problem);
    }
    const runId = runIdOf();
    const logger = loggerFor(config, io, runId);
    const onEvent = (event: CrawlEvent) => {
      // Pages, passes and the refresh plan (naiveCost, deferred) are the crawler's workings: --verbose
      // shows them; the report on stdout and status say what a run did.
      if (event.type === 'pass-done' || event.type === 'page' || event.type === 'refresh')
        logger.debug(event, event.type);
      else if (event.type === 'window-failed') logger.warn(event, event.type);
      else if (event.type === 'streams-capped') logger.warn(event, streamsCappedLine(event));
      else logger.info(event, event.type);
    };
    const report = await withRunDeps(
      config,
      io,
      selected,
      { runId, logger, ttlSeconds: leaseTtl(args), onEvent, wait: args.wait ?? false },
      (deps) =>
        runSync(deps, {
          runId,
          accounts: selected.map((a) => a.name),
          resources: config.crawl.resources,
          wait: args.wait ?? false,
        }),
    );
    for (const c of report.catalogs) {
      for (const failure of c.failures) logger.warn({ account: c.account, failure }, 'catalog not refreshed');
      for (const problem of c.problems) logger.warn({ account: c.account, problem }, 'catalog entry skipped');
    }
    if (report.error) throw report.error;
    io.stdout.write(config.json ? `${JSON.stringify(syncJson(report))}\n` : syncLines(report).join(''));
    return EXIT.ok;
  },
};

/** `sync --json`: the run's figures, one entry per account and resource. */
export function syncJson(report: SyncReport): Record<string, unknown> {
  return {
    run: report.runId,
    status: report.status,
    requests: report.requests,
    itemsWritten: report.itemsWritten,
    outcomes: report.outcomes.map((o) => ({
      account: o.account,
      resource: o.resource,
      from: o.from,
      to: o.to,
      items: o.incremental.items,
      written: o.incremental.written,
      refreshRepaged: o.refresh.repaged,
      refreshFetched: o.refresh.fetched,
      refreshBudget: o.refresh.budget,
      refreshPlanned: o.refresh.cost,
      refreshRequests: o.refresh.requests,
      refreshSaved: Math.max(0, o.refresh.budget - o.refresh.requests),
      refreshDue: o.refresh.due,
      refreshDeferred: o.refresh.deferred,
      gone: o.refresh.gone,
      sealed: o.sealed,
    })),
    catalogs: report.catalogs,
  };
}

/** A pass with no window to page, nothing to refresh and nothing to seal. */
function nothingDone(o: SyncReport['outcomes'][number]): boolean {
  return o.incremental.passes === 0 && o.refresh.repaged === 0 && o.refresh.fetched === 0 && o.sealed === 0;
}

function syncLines(report: SyncReport): string[] {
  const lines = report.outcomes.map((o) =>
    nothingDone(o)
      ? `sync ${o.account}/${o.resource}: nothing to do\n`
      : `sync ${o.account}/${o.resource}: ${o.incremental.items} items (${o.incremental.written} new or ` +
        `changed), refreshed ${o.refresh.repaged} windows + ${o.refresh.fetched} sessions (${o.refresh.requests} of ` +
        `${o.refresh.budget} ` +
        `requests${o.refresh.deferred > 0 ? `, ${o.refresh.deferred} left for later runs` : ''}), ${o.sealed} ` +
        `windows sealed\n`,
  );
  for (const c of report.catalogs) lines.push(`${catalogLine(c)}\n`);
  lines.push(`${report.requests} requests\n`);
  return lines;
}

function catalogLine(outcome: CatalogRefreshOutcome): string {
  const { stored } = outcome;
  const parts: string[] = [];
  if (stored.catalog_brands !== undefined) {
    parts.push(
      `${stored.catalog_brands} brands, ${stored.catalog_materials ?? 0} materials, ` +
        `${stored.catalog_detail_fields ?? 0} detail fields`,
    );
  }
  if (stored.catalog_categories !== undefined) parts.push(`${stored.catalog_categories} categories`);
  const head = `catalog ${outcome.account}: ${parts.length > 0 ? parts.join(', ') : 'nothing refreshed'}`;
  return outcome.failures.length === 0 ? head : `${head}; WARNING not refreshed: ${outcome.failures.join('; ')}`;
}
