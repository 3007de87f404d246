import { hostname } from 'node:os';
import { Writable } from 'node:stream';
import { DEFAULTS } from '../../config/defaults.js';
import { parseTime } from '../../config/parse-time.js';
import { checkWindowCount } from '../../crawl/windows.js';
import type { RunningDaemonServer } from '../../daemon/daemon-server.js';
import { LeaseKeeper } from '../../daemon/lease-keeper.js';
import { holderId } from '../../daemon/lease-names.js';
import type { WebhookCounters } from '../../daemon/webhook-counters.js';
import { InputError } from '../../errors.js';
import type { DeliveryEvent, WebhookReceiver } from '../../webhooks/webhook-receiver.js';
import { hasAnySecret } from '../../webhooks/webhook-secrets.js';
import { EXIT, type CliCommand } from '../command.js';
import { localHolderIsDead } from '../local-holder.js';
import type { Logger } from '../logger.js';
import { createBindings, loggerFor, newRunId, openTarget, selectAccounts, type CliIo, type RunHost } from '../runtime.js';
import { backfillCommand } from './backfill.js';
import { withResources } from './crawl-options.js';
import { leaseTtl, type LeaseArgs } from './lease-options.js';
import { syncCommand } from './sync.js';

interface DaemonArgs extends LeaseArgs {
  schedule?: string;
  timezone?: string;
  port?: number;
  host: string;
  since?: string;
  resources?: string;
  'backfill-from'?: string;
  'backfill-to'?: string;
}

/** Lines a run prints for a person become log records: a daemon has no terminal. */
function linesToLog(logger: Logger): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logger.info({ output: line }, 'run output');
      done();
    },
  });
}

/** Receiver events into the daemon's counters. */
function countDeliveries(counters: WebhookCounters): (event: DeliveryEvent) => void {
  return (event) => {
    if (event.outcome === 'refused') counters.refused(event.reason);
    else if (event.outcome === 'failed') counters.refused('error');
    else {
      counters.accepted();
      counters.stale(event.stale);
    }
  };
}

export const daemonCommand: CliCommand<DaemonArgs> = {
  command: 'daemon',
  describe: 'run sync on a cron schedule, never two at once; with --port serve /healthz, /metrics and the webhook receiver',
  builder: (yargs) =>
    withResources(yargs)
      .option('schedule', { type: 'string', describe: `cron expression, 5 fields or 6 with seconds [env IVS_SCHEDULE] (default: daemon.schedule, else '${DEFAULTS.daemon.schedule}')` })
      .option('timezone', { type: 'string', describe: `time zone of the schedule [env IVS_TIMEZONE] (default: daemon.timezone, else ${DEFAULTS.daemon.timezone})` })
      .option('port', { type: 'number', describe: 'serve GET /healthz, GET /metrics and (with a webhook secret) the webhook receiver on this port' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'address the port listens on (0.0.0.0 in a container)' })
      .option('since', { type: 'string', describe: 'where the first sync of an empty target starts: ISO 8601 or epoch seconds [env IVS_SINCE] (default: crawl.since)' })
      .option('backfill-from', { type: 'string', describe: 'also backfill from this time, in the background at the lowest priority' })
      .option('backfill-to', { type: 'string', describe: 'end of the background backfill (default: when the daemon starts)' })
      .option('lease-ttl', { type: 'number', describe: 'seconds without a heartbeat after which a daemon and its account leases count as dead (default 60)' }),
  run: async ({ args, io, config: load }) => {
    // Loaded here, not at start-up: the metrics registry, the HTTP server and the
    // receiver are the daemon's alone, and every other command stays smaller without them.
    const [{ Daemon }, { DaemonMetrics }, { startDaemonServer }, { createWebhookReceiver }] = await Promise.all([
      import('../../daemon/daemon.js'),
      import('../../daemon/daemon-metrics.js'),
      import('../../daemon/daemon-server.js'),
      import('../../webhooks/webhook-receiver.js'),
    ]);
    // Schedule, time zone and --since are resolved and checked by the loader (flag > env > file), naming their source.
    const config = load();
    const schedule = { expression: config.daemon.schedule, timezone: config.daemon.timezone };
    const backfillFrom = args['backfill-from'];
    if (args['backfill-to'] !== undefined && backfillFrom === undefined) {
      throw new InputError('BAD_BACKFILL', 'needs --backfill-from', { source: { kind: 'flag', name: '--backfill-to' }, value: args['backfill-to'] });
    }
    const now = io.clock() / 1000;
    const backfillTo = args['backfill-to'] ?? String(Math.floor(now));
    if (backfillFrom !== undefined) {
      const from = parseTime(backfillFrom, { kind: 'flag', name: '--backfill-from' }, now);
      const to = parseTime(backfillTo, { kind: 'flag', name: '--backfill-to' }, now);
      if (to < from) throw new InputError('BAD_INTERVAL', `${backfillTo} is before --backfill-from ${backfillFrom}`, { source: { kind: 'flag', name: '--backfill-to' }, value: backfillTo });
      checkWindowCount(from, to, config.crawl);
    }
    const selected = selectAccounts(config, args.account);
    const daemonId = newRunId();
    const logger = loggerFor(config, io, daemonId);
    const sink = await openTarget(config);
    let server: RunningDaemonServer | undefined;
    let receiver: WebhookReceiver | undefined;
    const keeper = new LeaseKeeper({ sink, holder: holderId(hostname(), process.pid, daemonId), ttlSeconds: leaseTtl(args), clock: io.clock, logger, holderIsDead: localHolderIsDead() });
    // Bound once for the life of the daemon: one bucket per token, shared by
    // the scheduled syncs and the background backfill (by priority).
    const boundRef: { current: ReturnType<typeof createBindings> } = { current: [] };
    const metrics = new DaemonMetrics({ buckets: () => boundRef.current.map((b) => ({ account: b.config.name, bucket: b.limiter })), clock: io.clock });
    try {
      const bound = createBindings(config, selected, logger, metrics.onRequest);
      boundRef.current = bound;
      metrics.declareAccounts(selected.map((a) => a.name));
      const host: RunHost = {
        sink,
        accounts: new Map(bound.map((b) => [b.config.name, b])),
        leases: keeper,
        onCrawlEvent: metrics.onCrawlEvent,
        onRunEnd: (command, status) => metrics.runFinished(command, status),
      };
      const runIo: CliIo = { ...io, stdout: linesToLog(logger), host };
      const shared = { config: () => config };
      const resources = args.resources;
      const daemon = new Daemon({
        accounts: selected.map((a) => a.name),
        sink,
        leases: keeper,
        schedule,
        signal: io.signal,
        clock: io.clock,
        random: Math.random,
        logger,
        observer: metrics,
        runSync: async (account) => {
          await syncCommand.run!({ ...shared, io: runIo, args: { account, since: args.since, resources, wait: false } });
        },
        runBackfill:
          backfillFrom === undefined
            ? undefined
            : async () => {
                // Waits for accounts that another process syncs now rather than giving up the backfill.
                await backfillCommand.run!({ ...shared, io: runIo, args: { account: args.account, from: backfillFrom, to: backfillTo, resources, wait: true } });
              },
      });
      if (args.port !== undefined) {
        const webhookSecrets = { byUuid: config.webhooks.secrets, defaultSecret: config.webhooks.defaultSecret };
        if (hasAnySecret(webhookSecrets)) {
          const first = bound[0]!;
          receiver = createWebhookReceiver({
            sink,
            secrets: webhookSecrets,
            account: first.config.name,
            path: config.webhooks.path,
            maxBodyBytes: config.webhooks.maxBodyBytes,
            clock: io.clock,
            logger,
            client: first.client,
            onDelivery: countDeliveries(metrics.webhooks),
          });
        }
        server = await startDaemonServer({
          port: args.port,
          host: args.host,
          health: () => daemon.health(),
          metrics,
          webhook: receiver ? { path: receiver.path, handler: receiver } : undefined,
        });
        logger.info({ url: server.url, webhooks: receiver ? receiver.path : null }, 'serving /healthz and /metrics');
      }
      await daemon.run();
      await receiver?.drain();
      for (const b of bound) b.client.close();
    } finally {
      await server?.close();
      await keeper.close();
      await sink.close();
    }
    return EXIT.ok;
  },
};
