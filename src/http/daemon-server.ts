import type { Exposure } from './exposure.js';
import { startHttpServer, type RunningHttpServer } from './http-server.js';
import { buildRouter } from './router.js';
import type { RunStarter } from '../daemon/on-demand-runs.js';
import type { StatusReader } from './status-routes.js';
import type { ConnectionLimits } from '../webhooks/connection-guard.js';
import type { WebhookReceiver } from '../webhooks/webhook-receiver.js';
import type { Health } from '../daemon/daemon-health.js';

export interface DaemonServerOptions {
  port: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** Who may use the routes beyond /healthz and the receiver. @default none needed (loopback) */
  exposure?: Exclude<Exposure, { auth: 'refused' }>;
  health: () => Health;
  metrics: { contentType: string; text: () => Promise<string> };
  /**
   * The webhook receiver, mounted at its path; it counts what the connection
   * limits turn away, and is drained on close.
   */
  webhook?: Pick<WebhookReceiver, 'path' | 'handle' | 'refused' | 'drain'> | undefined;
  /** The status page, its JSON and the run details. @default not served */
  status?: StatusReader | undefined;
  /** `POST /runs`. @default not served */
  runs?: RunStarter | undefined;
  /** Time-outs and the connection cap, as for `webhooks serve`. @default ConnectionLimits' defaults */
  limits?: ConnectionLimits;
}

export type RunningDaemonServer = RunningHttpServer;

/** The daemon's routes: `/healthz`, `/metrics`, the receiver, the status page and the run API, in its own process. */
export async function startDaemonServer(options: DaemonServerOptions): Promise<RunningDaemonServer> {
  const webhook = options.webhook;
  const app = buildRouter({
    exposure: options.exposure ?? { auth: 'none' },
    health: options.health,
    metrics: options.metrics,
    webhook: webhook === undefined ? undefined : { receiver: webhook, takesTheRest: false },
    status: options.status,
    runs: options.runs,
  });
  return startHttpServer({
    app,
    port: options.port,
    host: options.host ?? '127.0.0.1',
    limits: options.limits,
    onRefusal: webhook === undefined ? undefined : (reason, remote) => webhook.refused(reason, remote),
    drain: webhook === undefined ? undefined : () => webhook.drain(),
  });
}
