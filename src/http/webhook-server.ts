import { startHttpServer, type RunningHttpServer } from './http-server.js';
import { buildRouter } from './router.js';
import type { ConnectionLimits } from '../webhooks/connection-guard.js';
import type { WebhookReceiver } from '../webhooks/webhook-receiver.js';

export interface WebhookServerOptions {
  receiver: WebhookReceiver;
  /** 0 picks a free port. */
  port: number;
  /** @default '127.0.0.1' (0.0.0.0 to take deliveries directly from the service) */
  host?: string;
  /**
   * PEM certificate chain and key: serve HTTPS directly.
   * @default none (plain HTTP, for loopback behind a reverse proxy)
   */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** token -> value served as text/plain at /.well-known/service-domain-verification/<token>. @default {} */
  domainVerifications?: Readonly<Record<string, string>>;
  /**
   * Time-outs and the connection cap; what they turn away counts as the receiver's refusals.
   * @default ConnectionLimits' defaults
   */
  limits?: ConnectionLimits;
}

/**
 * `close()`: graceful stop: no new connections, connections still sending a
 * request are closed and new requests on open ones get 503 (the service
 * retries both), deliveries that fully arrived are committed and answered,
 * then the server closes. The caller closes the target afterwards.
 */
export type RunningWebhookServer = RunningHttpServer;

/**
 * The server of `ivsync webhooks serve`: the receiver at its path,
 * `GET /healthz`, and the domain verification pages. Everything else goes
 * to the receiver, which answers 404 (other paths) or 405 (other methods)
 * and counts them. Its routes are all public, so it needs no token.
 */
export async function startWebhookServer(options: WebhookServerOptions): Promise<RunningWebhookServer> {
  const { receiver } = options;
  const app = buildRouter({
    exposure: { auth: 'none' },
    health: () => ({ status: 200, body: { status: 'ok' } }),
    webhook: { receiver, takesTheRest: true, domainVerifications: options.domainVerifications },
  });
  return startHttpServer({
    app,
    port: options.port,
    host: options.host ?? '127.0.0.1',
    tls: options.tls,
    limits: options.limits,
    onRefusal: (reason, remote) => receiver.refused(reason, remote),
    drain: () => receiver.drain(),
  });
}
