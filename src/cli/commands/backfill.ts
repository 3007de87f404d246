import { parseInterval } from '../../config/interval.js';
import type { CrawlEvent } from '../../crawl/engine/crawl-deps.js';
import { runBackfill } from '../../crawl/runs/run-backfill.js';
import { USES } from './option-sets.js';
import { EXIT, FINISHING_PAGES, type CliCommand } from '../command.js';
import { planExtent, Progress } from '../progress.js';
import { loggerFor, selectAccounts, withRunDeps } from '../runtime.js';
import { streamsCappedLine } from '../streams-capped.js';
import { withResources } from './crawl-options.js';
import { leaseTtl, withLeaseOptions, type LeaseArgs } from './lease-options.js';

interface BackfillArgs extends LeaseArgs {
  from: string;
  to: string;
  resources?: string;
}

export const backfillCommand: CliCommand<BackfillArgs> = {
  command: 'backfill',
  onStop: FINISHING_PAGES,
  describe: 'crawl a closed historical interval; re-run the same command to resume after a crash or Ctrl-C',
  uses: USES.crawl,
  usage: 'backfill --from T --to T',
  examples: [
    [
      '$0 backfill --from 2024-01-01 --to 2024-12-31',
      'page 2024 of both resources; Ctrl-C and the same command resume',
    ],
    [
      '$0 backfill --from 1704067200 --to 1706745599 --resources fingerprints',
      'January 2024 in epoch seconds, fingerprints only',
    ],
  ],
  builder: (yargs) =>
    withLeaseOptions(withResources(yargs))
      .option('from', { type: 'string', demandOption: true, describe: 'start: ISO 8601 date-time or epoch seconds' })
      .option('to', {
        type: 'string',
        demandOption: true,
        describe: 'end (inclusive): ISO 8601 date-time or epoch seconds',
      }),
  run: async ({ args, io, config: load, runId: runIdOf }) => {
    const config = load();
    const now = io.clock() / 1000;
    // Refused here, before the target is opened or a run recorded.
    const { from, to } = parseInterval(
      { from: args.from, to: args.to },
      { from: '--from', to: '--to' },
      now,
      config.crawl,
    );
    const resources = config.crawl.resources;
    const selected = selectAccounts(config, args.account);
    const runId = runIdOf();
    const logger = loggerFor(config, io, runId);
    const progress = new Progress({ tty: Boolean(io.stderr.isTTY), stream: io.stderr, logger, clock: io.clock });
    let extent: ReturnType<typeof planExtent> | undefined;
    const onEvent = (event: CrawlEvent): void => {
      if (event.type === 'backfill-plan') {
        extent = planExtent(event.plans);
        const resumed = event.plans.reduce((n, p) => n + p.resumed, 0);
        logger.debug({ plans: event.plans }, 'backfill plan');
        if (extent.todo === 0)
          logger.info(
            { windows: extent.windows },
            `backfill: nothing to do: the ${extent.windows} windows of the interval are paged already`,
          );
        else
          logger.info(
            { windows: extent.todo, resumed, done: extent.windows - extent.todo },
            `backfill: ${extent.todo} of ${extent.windows} windows to page (${resumed} resumed)`,
          );
      }
      if (event.type === 'streams-capped') logger.warn(event, streamsCappedLine(event));
      progress.onEvent(event);
    };
    let report;
    try {
      report = await withRunDeps(
        config,
        io,
        selected,
        { runId, logger, ttlSeconds: leaseTtl(args), onEvent, wait: args.wait ?? false },
        (deps) =>
          runBackfill(deps, {
            runId,
            accounts: selected.map((a) => a.name),
            from,
            to,
            resources,
            wait: args.wait ?? false,
          }),
      );
    } finally {
      progress.stop(report !== undefined && report.error === null && report.failedWindows.length === 0);
    }
    if (report.failedWindows.length > 0) logger.error({ failed: report.failedWindows }, 'windows failed');
    if (report.error) throw report.error;
    const windowsPaged = extent?.todo ?? 0;
    const summary = {
      run: report.runId,
      items: report.items,
      written: report.itemsWritten,
      pages: report.pages,
      requests: report.requests,
      windowsPaged,
      failedWindows: report.failedWindows.length,
    };
    const text =
      windowsPaged === 0
        ? `backfill: nothing to do: every window from ${args.from} to ${args.to} is paged already (ivsync reset ` +
          `reopens windows to crawl them again)\n`
        : // Items fetched count what the service sent (a session seen twice, a rejected item);
          // sessions new or changed, the rows stored.
          `backfill complete: ${summary.items} items fetched in ${summary.pages} pages, ` +
          `${summary.written} sessions new or changed, ${summary.requests} requests\n`;
    io.stdout.write(config.json ? `${JSON.stringify(summary)}\n` : text);
    return EXIT.ok;
  },
};
