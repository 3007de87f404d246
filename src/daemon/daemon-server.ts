import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConnectionGuard, type ConnectionLimits } from '../webhooks/connection-guard.js';
import type { WebhookReceiver } from '../webhooks/webhook-receiver.js';
import type { Health } from './daemon-health.js';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface DaemonServerOptions {
  port: number;
  /** @default '127.0.0.1' (the container passes 0.0.0.0) */
  host?: string;
  health: () => Health;
  metrics: { contentType: string; text: () => Promise<string> };
  /** The webhook receiver, mounted at its path; it counts what the connection limits turn away, and is drained on close. */
  webhook?: (RequestHandler & Pick<WebhookReceiver, 'path' | 'refused' | 'drain'>) | undefined;
  /** Time-outs and the connection cap, as for `webhooks serve`. @default ConnectionLimits' defaults */
  limits?: ConnectionLimits;
}

export interface RunningDaemonServer {
  readonly url: string;
  readonly port: number;
  /** Graceful stop, as `webhooks serve` stops: the receiver drained, then every connection closed. */
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** `GET /healthz`, `GET /metrics` and the webhook receiver, in the daemon's own process. */
export async function startDaemonServer(options: DaemonServerOptions): Promise<RunningDaemonServer> {
  const guard = new ConnectionGuard(options.limits, options.webhook?.refused);
  const server: Server = createServer(guard.serverOptions, (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (options.webhook && path === options.webhook.path) {
      options.webhook(req, res);
      return;
    }
    if (path !== '/healthz' && path !== '/metrics') {
      send(res, 404, 'application/json', '{"error":"not found"}');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'application/json', '{"error":"method not allowed"}', { Allow: 'GET, HEAD' });
      return;
    }
    if (path === '/healthz') {
      const health = options.health();
      send(res, health.status, 'application/json', JSON.stringify(health.body));
      return;
    }
    options.metrics.text().then(
      (text) => send(res, 200, options.metrics.contentType, text),
      (error: unknown) => send(res, 500, 'text/plain', `metrics failed: ${(error as Error).message}\n`),
    );
  });
  // Also keeps a scrape's idle keep-alive socket from holding a stopping daemon for long.
  guard.watch(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: () => guard.stop(async () => options.webhook?.drain()),
  };
}
