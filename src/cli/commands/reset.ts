import { RESOURCES, type ResourceName } from '../../config/constants.js';
import { parseResources } from '../../config/parse-resources.js';
import { parseBounds } from '../../config/interval.js';
import { holdAccounts } from '../../crawl/runs/run-recorder.js';
import { toIsoMicros } from '../../normalize/time.js';
import type { ReopenedWindows } from '../../store/sink.js';
import { USES } from './option-sets.js';
import { EXIT, type CliCommand } from '../command.js';
import { leaseKeeper } from '../../app/lease-keeper-for.js';
import { openTarget } from '../../app/open-target.js';
import { loggerFor, selectAccounts } from '../runtime.js';
import { leaseTtl, withLeaseOptions, type LeaseArgs } from './lease-options.js';

interface ResetArgs extends LeaseArgs {
  resources?: string;
  from?: string;
  to?: string;
}

export const resetCommand: CliCommand<ResetArgs> = {
  command: 'reset',
  describe:
    'reopen stored windows (sealed ones too) so that the next backfill or sync pages them again; the rows stay ' +
    'until then',
  uses: USES.accounts,
  examples: [
    [
      '$0 reset --resources fingerprints --from 2025-03-01 --to 2025-03-31',
      'page March 2025 of the fingerprints again on the next run',
    ],
    ['$0 reset --account shop-eu --json', 'reopen every window of one account, and say what in JSON'],
  ],
  builder: (yargs) =>
    withLeaseOptions(yargs)
      .option('resources', {
        type: 'string',
        // The spelling every other command takes; the singular one older scripts use still works.
        alias: 'resource',
        describe: `comma-separated: ${RESOURCES.join(',')} (default: both)`,
      })
      .option('from', {
        type: 'string',
        describe: 'only windows from this time: ISO 8601 or epoch seconds (default: the whole stored history)',
      })
      .option('to', { type: 'string', describe: 'only windows up to this time (inclusive)' }),
  run: async ({ args, io, config: load, runId }) => {
    const config = load();
    const now = io.clock() / 1000;
    const resources: readonly ResourceName[] =
      args.resources === undefined ? RESOURCES : parseResources(args.resources, { kind: 'flag', name: '--resources' });
    const { from, to } = parseBounds({ from: args.from, to: args.to }, { from: '--from', to: '--to' }, now);
    const accounts = selectAccounts(config, args.account).map((a) => a.name);
    const holderId = runId();
    const logger = loggerFor(config, io, holderId);
    // Opened only when it exists already: reset never creates the target it is asked to change.
    const sink = await openTarget(config, {
      existing: true,
      ...(args.wait === true ? { wait: { signal: io.signal, logger } } : {}),
    });
    const keeper = leaseKeeper(sink, io, logger, holderId, leaseTtl(args));
    let reopened: ReopenedWindows[];
    try {
      // Under the accounts' leases: a sync running now would otherwise finish a window just reopened.
      reopened = await holdAccounts(
        { leases: keeper, signal: io.signal },
        { accounts, wait: args.wait ?? false },
        async () => {
          const done: ReopenedWindows[] = [];
          const at = toIsoMicros(io.clock() / 1000);
          // --to is inclusive, like backfill's: the window holding that second is reopened too.
          for (const account of accounts)
            for (const resource of resources)
              done.push(
                await sink.reopenWindows({ account, resource, from, to: to === undefined ? undefined : to + 1 }, at),
              );
          return done;
        },
      );
    } finally {
      await keeper.close();
      await sink.close();
    }
    io.stdout.write(config.json ? `${JSON.stringify({ reopened: reopened.map(resetJson) })}\n` : renderReset(reopened));
    return EXIT.ok;
  },
};

const iso = (epoch: number | null): string | null => (epoch === null ? null : new Date(epoch * 1000).toISOString());

function resetJson(r: ReopenedWindows): Record<string, unknown> {
  return {
    account: r.account,
    resource: r.resource,
    windows: r.windows,
    sealed: r.sealed,
    from: iso(r.from),
    to: iso(r.to),
  };
}

export function renderReset(reopened: readonly ReopenedWindows[]): string {
  const lines = reopened.map((r) =>
    r.windows === 0
      ? `reset ${r.account}/${r.resource}: no stored window in the range\n`
      : `reset ${r.account}/${r.resource}: reopened ${r.windows} windows (${r.sealed} sealed) from ` +
        `${iso(r.from)} to ${iso(r.to)}\n`,
  );
  const total = reopened.reduce((n, r) => n + r.windows, 0);
  lines.push(
    total === 0
      ? 'nothing reopened\n'
      : `the next backfill over these times (or sync) pages the ${total} windows again\n`,
  );
  return lines.join('');
}
