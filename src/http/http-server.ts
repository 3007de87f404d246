import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { HttpApp } from './http-app.js';
import { ConnectionGuard, type ConnectionLimits, type OnRefusal } from '../webhooks/connection-guard.js';

export interface HttpServerOptions {
  /** The routes; see router.ts. */
  app: HttpApp;
  /** 0 picks a free port. */
  port: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** PEM certificate chain and key: serve HTTPS directly. @default none (plain HTTP) */
  tls?: { cert: string | Buffer; key: string | Buffer } | undefined;
  /** Time-outs and the connection cap. @default ConnectionLimits' defaults */
  limits?: ConnectionLimits | undefined;
  /** Told of requests the limits turned away (the webhook receiver counts them). */
  onRefusal?: OnRefusal | undefined;
  /** Waited for on close, after new requests stop and before connections are closed (the receiver's drain). */
  drain?: (() => Promise<void>) | undefined;
}

export interface RunningHttpServer {
  /** e.g. http://127.0.0.1:8080 (the address bound, not a public name). */
  readonly url: string;
  readonly port: number;
  /**
   * Graceful stop: no new connections, requests still arriving are cut off
   * (the service delivers again), `drain` waits for those that arrived, then
   * every connection is closed. Idempotent.
   */
  close(): Promise<void>;
}

/** The one HTTP(S) server of ivsync: the daemon, `webhooks serve` and `ui` each listen through it with their routes. */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const guard = new ConnectionGuard(options.limits, options.onRefusal);
  // Left alone: the receiver reads (or refuses unread) the bodies itself, and tests use the real fetch.
  const listener = getRequestListener(options.app.fetch, { autoCleanupIncoming: false, overrideGlobalObjects: false });
  const server: Server =
    options.tls === undefined
      ? createHttpServer(guard.serverOptions, listener)
      : createHttpsServer({ ...guard.serverOptions, cert: options.tls.cert, key: options.tls.key }, listener);
  guard.watch(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://${host}:${address.port}`,
    port: address.port,
    close: () => guard.stop(options.drain),
  };
}
