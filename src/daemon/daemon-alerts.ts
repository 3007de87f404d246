import type { AlertsConfig } from '../config/config.js';
import type { AlertEvent } from './alert-decision.js';
import { AlertSender } from './alert-sender.js';
import { Alerts } from './alerts.js';
import type { DaemonObserver, TickRecord } from './daemon.js';
import type { DaemonMetrics } from './daemon-metrics.js';
import type { ScheduleLogger } from './schedule.js';
import { oldestCheck } from './stale-checks.js';
import type { StatusReport } from '../store/sink.js';

export interface DaemonAlerts {
  /** The metrics' observer, with the runs and ticks also fed to the alerts. */
  readonly observer: DaemonObserver;
  /** Feeds an event the daemon does not see itself (the webhook stream, a verify's findings). */
  observe(event: AlertEvent): void;
  /** The status page's address, for the messages' link. */
  set link(url: string | undefined);
  /** Sends what is in flight, within a deadline. */
  close(): Promise<void>;
}

/**
 * The alerts of one daemon process, wired to its metrics; with no alert URL
 * configured, events are still decided (cheap) but nothing is sent.
 */
export function daemonAlerts(parts: {
  config: AlertsConfig;
  daemon: string;
  clock: () => number;
  logger: ScheduleLogger;
  metrics: DaemonMetrics;
  /** The accounts this daemon syncs: each one's checks are held to its staleness bound. */
  accounts: readonly string[];
  /** An account's staleness bound in seconds (stale-checks.ts), given the status just read. */
  staleBound: (account: string, report: StatusReport) => number;
}): DaemonAlerts {
  const { config, metrics } = parts;
  const sender = new AlertSender({
    urls: config.urls,
    retries: config.retries,
    timeoutMs: config.timeoutMs,
    logger: parts.logger,
    onOutcome: (kind, outcome) => metrics.alertSent(kind, outcome),
  });
  const alerts = new Alerts({ sender, daemon: parts.daemon, clock: parts.clock });
  const observer: DaemonObserver = {
    tickSkipped: (reason) => metrics.tickSkipped(reason),
    runFinished: (command, status) => metrics.runFinished(command, status),
    observe: (report) => {
      metrics.observe(report);
      const now = parts.clock() / 1000;
      for (const account of parts.accounts) {
        const oldest = oldestCheck(report.refresh, account, now);
        alerts.observe({ type: 'checks', account, ...oldest, boundSeconds: parts.staleBound(account, report) });
      }
    },
    runEnded: (run) => alerts.observe({ type: 'run', ...run, at: alerts.now() }),
    tickRecorded: (tick: TickRecord) => {
      metrics.tickRecorded(tick);
      alerts.observe({ type: 'tick', ...tick });
    },
  };
  return {
    observer,
    observe: alerts.observe,
    set link(url: string | undefined) {
      alerts.link = url;
    },
    close: () => sender.close(),
  };
}
