import { randomInt } from 'node:crypto';
import { hostname } from 'node:os';
import { DEFAULTS } from '../../config/defaults.js';
import { parseInterval, type Interval } from '../../config/interval.js';
import { PRIORITY } from '../../config/constants.js';
import { runBackfill, type BackfillReport } from '../../crawl/runs/run-backfill.js';
import { webhooksHealthy, webhookStreamState } from '../../crawl/refresh/refresh-settings.js';
import { staleCheckBound } from '../../daemon/stale-checks.js';
import { holderId } from '../../store/leases/lease-names.js';
import { runSync, type SyncReport } from '../../crawl/runs/run-sync.js';
import { runVerify } from '../../crawl/runs/run-verify.js';
import { localHolderIsDead } from '../../app/local-holder.js';
import { newRunId } from '../../crawl/runs/run-recorder.js';
import { LeaseHeldError } from '../../daemon/lease-held-error.js';
import { leaseLiveness } from '../../daemon/lease-liveness.js';
import { OnDemandRuns } from '../../daemon/on-demand-runs.js';
import type { RunningDaemonServer } from '../../http/daemon-server.js';
import { requireExposure } from '../../http/exposure.js';
import { accountLease } from '../../store/leases/lease-names.js';
import { VerifyCadence } from '../../daemon/verify-cadence.js';
import type { WebhookCounters } from '../../daemon/webhook-counters.js';
import { InputError } from '../../errors.js';
import type { DeliveryEvent, WebhookReceiver } from '../../webhooks/webhook-receiver.js';
import { hasAnySecret } from '../../webhooks/webhook-secrets.js';
import { USES } from './option-sets.js';
import { EXIT, FINISHING_PAGES, type CliCommand } from '../command.js';
import { receiverFor } from '../../app/receiver-for.js';
import { openApp, type App } from '../../app/open-app.js';
import { onDemandRun } from '../on-demand-run.js';
import { pageReader } from '../page-reader.js';
import { logReport, logVerify } from '../daemon-run-log.js';
import { loggerFor, selectAccounts } from '../runtime.js';
import { streamsCappedLine } from '../streams-capped.js';
import { withResources } from './crawl-options.js';
import { leaseTtl, type LeaseArgs } from './lease-options.js';

interface DaemonArgs extends LeaseArgs {
  schedule?: string;
  timezone?: string;
  port?: number;
  host: string;
  since?: string;
  resources?: string;
  'backfill-from'?: string;
  'backfill-to'?: string;
  'verify-every'?: string;
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
  onStop: FINISHING_PAGES,
  describe:
    'run sync on a cron schedule, never two at once; with --port serve /healthz, /metrics, the status page, ' +
    'POST /runs and the webhook receiver',
  uses: USES.crawl,
  examples: [
    ['$0 daemon --port 9090', 'sync every 5 minutes; the status page, /healthz and /metrics on port 9090'],
    [
      "$0 daemon --schedule '*/1 * * * *' --backfill-from 2023-01-01 --verify-every 1d",
      'every minute, with a background backfill and a daily verify',
    ],
  ],
  builder: (yargs) =>
    withResources(yargs)
      .option('schedule', {
        type: 'string',
        describe:
          `cron expression, 5 fields or 6 with seconds [env IVS_SCHEDULE] (default: daemon.schedule, else ` +
          `'${DEFAULTS.daemon.schedule}')`,
      })
      .option('timezone', {
        type: 'string',
        describe:
          `time zone of the schedule [env IVS_TIMEZONE] (default: daemon.timezone, else ` +
          `${DEFAULTS.daemon.timezone})`,
      })
      .option('port', {
        type: 'number',
        describe:
          'serve GET /healthz, GET /metrics, the status page at GET /, POST /runs and (with a webhook secret) ' +
          'the webhook receiver on this port',
      })
      .option('host', {
        type: 'string',
        default: '127.0.0.1',
        describe:
          'address the port listens on (0.0.0.0 in a container); beyond loopback every route but /healthz and ' +
          '/webhooks needs IVS_UI_TOKEN as a bearer token',
      })
      .option('since', {
        type: 'string',
        describe:
          'where the first sync of an empty target starts: ISO 8601 or epoch seconds [env IVS_SINCE] (default: ' +
          'crawl.since)',
      })
      .option('backfill-from', {
        type: 'string',
        describe: 'also backfill from this time, in the background at the lowest priority',
      })
      .option('backfill-to', {
        type: 'string',
        describe: 'end of the background backfill (default: when the daemon starts)',
      })
      .option('verify-every', {
        type: 'string',
        describe:
          'also verify each account after its sync this often: a period (6h, 1d) since the last verify or a ' +
          'cron expression, at the lowest priority [env IVS_VERIFY_EVERY] (default: verify.every, else never)',
      })
      .option('refresh-budget', {
        type: 'number',
        describe:
          'requests one sync spends re-checking non-final sessions, per account [env IVS_REFRESH_BUDGET] ' +
          '(default: refresh.maxRequestsPerRun, else what the pass leaves of refresh.budgetShare of rate x ' +
          'schedule gap)',
      })
      .option('lease-ttl', {
        type: 'number',
        describe: 'seconds without a heartbeat after which a daemon and its account leases count as dead (default 60)',
      }),
  run: async ({ args, io, config: load, daemonId: daemonIdOf }) => {
    // Loaded here, not at start-up: the metrics registry and the HTTP server are
    // the daemon's alone, and every other command stays smaller without them.
    const [{ Daemon }, { DaemonMetrics }, { startDaemonServer }, { daemonAlerts }] = await Promise.all([
      import('../../daemon/daemon.js'),
      import('../../daemon/daemon-metrics.js'),
      import('../../http/daemon-server.js'),
      import('../../daemon/daemon-alerts.js'),
    ]);
    // Schedule, time zone and --since are resolved and checked by the loader (flag > env > file), naming their source.
    const config = load();
    const schedule = { expression: config.daemon.schedule, timezone: config.daemon.timezone };
    const resources = config.crawl.resources;
    const backfillText = args['backfill-from'];
    if (args['backfill-to'] !== undefined && backfillText === undefined) {
      throw new InputError('BAD_BACKFILL', 'needs --backfill-from', {
        source: { kind: 'flag', name: '--backfill-to' },
        value: args['backfill-to'],
      });
    }
    const now = io.clock() / 1000;
    const backfillToText = args['backfill-to'] ?? String(Math.floor(now));
    const backfill: Interval | undefined =
      backfillText === undefined
        ? undefined
        : parseInterval(
            { from: backfillText, to: backfillToText },
            { from: '--backfill-from', to: '--backfill-to' },
            now,
            config.crawl,
          );
    const selected = selectAccounts(config, args.account);
    // Before anything is opened: beyond loopback without a token the daemon does not start.
    const exposure = args.port === undefined ? undefined : requireExposure(args.host, io.env);
    const daemonId = daemonIdOf();
    const logger = loggerFor(config, io, { daemon: daemonId });
    // Bound once for the life of the daemon: one bucket per token, shared by
    // the scheduled syncs, the background backfill (by priority) and the receiver.
    let app: App | undefined;
    const { secrets, defaultSecret } = config.webhooks;
    const webhooksConfigured = hasAnySecret({ byUuid: secrets, defaultSecret });
    const metrics = new DaemonMetrics({
      buckets: () =>
        (app?.accounts ?? []).map((b) => ({ account: b.config.name, bucket: b.limiter, rate: b.config.rate })),
      clock: io.clock,
      webhookHealthySeconds: webhooksConfigured ? config.webhooks.healthySeconds : undefined,
    });
    metrics.declareAccounts(selected.map((a) => a.name));
    const verifyEvery = config.verify.every;
    if (verifyEvery !== undefined)
      metrics.declareVerify(
        selected.map((a) => a.name),
        resources,
      );
    const alerts = daemonAlerts({
      config: config.alerts,
      // Named as its leases are (sync_leases.holder), so that a takeover's holder and sender compare.
      daemon: holderId(hostname(), process.pid, daemonId),
      clock: io.clock,
      logger,
      metrics,
      accounts: selected.map((a) => a.name),
      staleBound: (account, report) => {
        const refresh = app!.deps.refresh!;
        const last = report.lastDeliveryAt === null ? null : Date.parse(report.lastDeliveryAt) / 1000;
        return staleCheckBound({
          configured: config.alerts.staleCheckSeconds,
          runSeconds: app!.deps.accounts.find((a) => a.name === account)?.runSeconds ?? refresh.runSeconds,
          maxIntervalSeconds: refresh.maxIntervalSeconds,
          webhooksHealthy: webhooksHealthy(refresh.webhooks, last, io.clock() / 1000),
        });
      },
    });
    app = await openApp(config, {
      accounts: selected,
      logger,
      id: daemonId,
      leaseTtlSeconds: leaseTtl(args),
      clock: io.clock,
      signal: io.signal,
      onRequest: metrics.onRequest,
      onEvent: (event) => {
        if (event.type === 'streams-capped') logger.warn(event, streamsCappedLine(event));
        metrics.onCrawlEvent(event);
      },
    });
    const { sink, leases: keeper, accounts: bound, deps } = app;
    let server: RunningDaemonServer | undefined;
    let receiver: WebhookReceiver | undefined;
    const cadence =
      verifyEvery === undefined
        ? undefined
        : new VerifyCadence({
            cadence: verifyEvery,
            timezone: schedule.timezone,
            clock: io.clock,
            lastStart: (account) => sink.lastVerifyStart(account),
          });
    try {
      const logged = <R extends SyncReport | BackfillReport>(report: R): R => {
        logReport(logger, report);
        return report;
      };
      const onDemand = new OnDemandRuns({
        accounts: selected.map((a) => a.name),
        holderOf: async (account) => {
          const name = accountLease(account);
          if (keeper.holds(name)) return keeper.holder;
          const views = leaseLiveness(await sink.leases(), io.clock() / 1000, keeper.ttlSeconds, localHolderIsDead());
          return views.find((l) => l.name === name && !l.stale)?.holder;
        },
        prepare: (request, runId) => onDemandRun(config, deps, request, runId, io.clock() / 1000),
        newId: newRunId,
        clock: io.clock,
        // Counted and alerted as the scheduled runs are.
        onFinished: ({ command, account, outcome, ending }) => {
          const error = ending.error ? { error: ending.error.message } : {};
          logger.info(
            { run: ending.runId, command, account, status: outcome.status, ...error },
            `${command} on demand ${outcome.status}`,
          );
          if (outcome.status !== 'held') alerts.observer.runFinished(command, outcome.status);
          alerts.observer.runEnded?.({ command, account, outcome });
        },
      });
      const daemon = new Daemon({
        accounts: selected.map((a) => a.name),
        sink,
        leases: keeper,
        schedule,
        accountSchedules: new Map(selected.map((a) => [a.name, a.schedule])),
        signal: io.signal,
        clock: io.clock,
        random: Math.random,
        logger,
        observer: alerts.observer,
        webhookStream: (report) => {
          const nonFinal = report.nonFinal.authentications + report.nonFinal.fingerprints;
          const stream = webhookStreamState(deps.refresh!.webhooks, report.lastDeliveryAt, nonFinal, io.clock() / 1000);
          alerts.observe({ type: 'webhooks', ...stream });
          return stream.detail;
        },
        runSync: async (account) => {
          // A run on demand holds the account in this process: the tick leaves it alone, as it would another holder's.
          if (onDemand.busy(account)) {
            const at = new Date(io.clock()).toISOString();
            throw new LeaseHeldError({
              name: accountLease(account),
              holder: keeper.holder,
              acquiredAt: at,
              heartbeatAt: at,
              held: false,
            });
          }
          const report = await runSync(deps, { accounts: [account], resources, wait: false });
          metrics.refreshFinished(report.outcomes);
          return logged(report);
        },
        runBackfill:
          backfill === undefined
            ? undefined
            : async () =>
                // Waits for accounts that another process syncs now rather than giving up the backfill.
                logged(
                  await runBackfill(deps, {
                    accounts: selected.map((a) => a.name),
                    from: backfill.from,
                    to: backfill.to,
                    resources,
                    priority: PRIORITY.backfill,
                    wait: true,
                  }),
                ),
        verify:
          cadence === undefined
            ? undefined
            : {
                due: (account) => cadence.due(account),
                run: async (account) => {
                  const report = await runVerify(deps, {
                    accounts: [account],
                    resources,
                    budget: config.verify.budget,
                    seed: String(randomInt(2 ** 31)),
                    repair: false,
                    wait: false,
                  });
                  metrics.verifyFinished(report.findings);
                  logVerify(logger, report);
                  const { runId, findings } = report;
                  if (report.status !== 'failed') alerts.observe({ type: 'verify', account, runId, findings });
                  // A partial verify checked what its budget held: not a failure of the daemon.
                  return { status: report.status === 'partial' ? 'succeeded' : report.status, error: report.error };
                },
              },
      });
      cadence?.start();
      if (args.port !== undefined) {
        if (webhooksConfigured) {
          receiver = receiverFor(config, {
            sink,
            accounts: bound.map((b) => ({ name: b.config.name, bound: b })),
            logger,
            clock: io.clock,
            onDelivery: countDeliveries(metrics.webhooks),
          });
        }
        server = await startDaemonServer({
          port: args.port,
          host: args.host,
          health: () => daemon.health(),
          metrics,
          webhook: receiver,
          exposure,
          status: pageReader(config, sink, io.clock),
          runs: onDemand,
          limits: {
            requestTimeoutMs: config.webhooks.requestTimeoutMs,
            maxConnections: config.webhooks.maxConnections,
          },
        });
        logger.info(
          { url: server.url, page: `${server.url}/`, webhooks: receiver ? receiver.path : null },
          'serving /healthz and /metrics',
        );
        alerts.link = `${server.url}/`;
      }
      await daemon.run();
      await onDemand.idle();
      // Drains the receiver: deliveries that fully arrived are committed and answered.
      await server?.close();
    } finally {
      await alerts.close();
      await cadence?.stop();
      await server?.close();
      await app.close();
    }
    return EXIT.ok;
  },
};
