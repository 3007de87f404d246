import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { ConnectionGuard, type ConnectionLimits } from './connection-guard.js';
import { verificationValue } from './domain-verification.js';
import type { WebhookReceiver } from './webhook-receiver.js';

export interface WebhookServerOptions {
  receiver: WebhookReceiver;
  /** 0 picks a free port. */
  port: number;
  /** @default '0.0.0.0' */
  host?: string;
  /** PEM certificate chain and key: serve HTTPS directly. @default none (plain HTTP, for loopback behind a reverse proxy) */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** token -> value served as text/plain at /.well-known/service-domain-verification/<token>. @default {} */
  domainVerifications?: Readonly<Record<string, string>>;
  /** Time-outs and the connection cap; what they turn away counts as the receiver's refusals. @default ConnectionLimits' defaults */
  limits?: ConnectionLimits;
}

export interface RunningWebhookServer {
  /** e.g. http://127.0.0.1:8443 (the address bound, not a public name). */
  readonly url: string;
  readonly port: number;
  /**
   * Graceful stop: no new connections, connections still sending a request
   * are closed and new requests on open ones get 503 (the service retries
   * both), deliveries that fully arrived are committed and answered, then the
   * server closes. The caller closes the target afterwards.
   */
  close(): Promise<void>;
}

function text(res: ServerResponse, status: number, contentType: string, body: string, head: boolean): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': 'no-store' });
  res.end(head ? undefined : body);
}

/**
 * The HTTP(S) server of `ivsync webhooks serve`: the receiver at its path,
 * `GET /healthz`, and the domain verification pages. Everything else goes
 * to the receiver, which answers 404 (other paths) or 405 (other methods).
 */
export async function startWebhookServer(options: WebhookServerOptions): Promise<RunningWebhookServer> {
  const { receiver } = options;
  const verifications = options.domainVerifications ?? {};
  const route = (req: IncomingMessage, res: ServerResponse): void => {
    const pathname = new URL(req.url ?? '/', 'http://receiver').pathname;
    const read = req.method === 'GET' || req.method === 'HEAD';
    if (pathname === '/healthz' && read) return text(res, 200, 'application/json; charset=utf-8', '{"status":"ok"}', req.method === 'HEAD');
    const value = read ? verificationValue(pathname, verifications) : undefined;
    if (value !== undefined) return text(res, 200, 'text/plain; charset=utf-8', value, req.method === 'HEAD');
    receiver(req, res);
  };
  const guard = new ConnectionGuard(options.limits, receiver.refused);
  const server: Server =
    options.tls === undefined
      ? createHttpServer(guard.serverOptions, route)
      : createHttpsServer({ ...guard.serverOptions, cert: options.tls.cert, key: options.tls.key }, route);
  guard.watch(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${options.tls === undefined ? 'http' : 'https'}://${host}:${address.port}`;
  return {
    url,
    port: address.port,
    close: () => guard.stop(() => receiver.drain()),
  };
}
