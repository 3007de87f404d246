import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { UserError } from '../../src/errors.js';
import { createClient } from '../../src/api/client.js';
import type { ClientOptions } from '../../src/api/client.js';
import {
  AuthRejectedError,
  RetriesExhaustedError,
  ServiceUnreachableError,
  isApiFailure,
} from '../../src/api/errors.js';
import { RateLimiter } from '../../src/api/rate-limiter.js';
import type { ServiceClient } from '../../src/api/service-client.js';
import { freePort as closedPort } from '../helpers/free-port.js';
import { caught, expectNoSecret } from './caught.js';
import { sendJson, startScriptServer } from './script-server.js';
import type { Script, ScriptServer } from './script-server.js';
import { clientOptions } from '../helpers/client-options.js';
import { until } from '../helpers/wait.js';

const TOKEN = 'tok-fail-fast-0123456789';

let servers: ScriptServer[] = [];
let clients: ServiceClient[] = [];

afterEach(async () => {
  for (const c of clients) c.close();
  clients = [];
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

function client(
  baseUrl: string,
  options: Partial<ClientOptions> = {},
): { client: ServiceClient; limiter: RateLimiter } {
  const limiter = options.limiter ?? new RateLimiter({ rate: 1000 });
  const made = createClient(
    clientOptions(baseUrl, {
      token: new Secret(TOKEN),
      limiter,
      retry: { limit: 8, baseMs: 500, maxMs: 30_000 },
      ...options,
    }),
  );
  clients.push(made);
  return { client: made, limiter };
}

async function server(script: Script): Promise<ScriptServer> {
  const started = await startScriptServer(script);
  servers.push(started);
  return started;
}

const emptyPage = { item_count: 0, items: [], next_cursor: null };

describe('a service that cannot be reached at the start', () => {
  it('a closed port: one quick retry, then one line naming the host and the cause', async () => {
    const port = await closedPort();
    // The default retry policy (8 retries, backoff up to 30 s) would take a minute here.
    const { client: c, limiter } = client(`http://127.0.0.1:${port}`);
    const started = Date.now();
    const error = await caught(c.health());
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(error).toBeInstanceOf(ServiceUnreachableError);
    expect(error).toBeInstanceOf(UserError);
    expect(isApiFailure(error)).toBe(true);
    expect((error as ServiceUnreachableError).code).toBe('SERVICE_UNREACHABLE');
    expect(error.message).toBe(`cannot reach the service at 127.0.0.1:${port}: connection refused (ECONNREFUSED)`);
    expect(c.stats.requests).toBe(2);
    expectNoSecret(error, TOKEN);

    // Every later request fails with the same error, taking no token.
    const again = await caught(c.searchPage('authentications', {}));
    expect(again).toBe(error);
    expect(limiter.stats.started).toBe(2);
    expect(c.stats.requests).toBe(2);
  });

  it('TLS to a server that does not speak it: no retry', async () => {
    const plain = await server((_req, res) => sendJson(res, 200, { status: 'ok' }));
    const { client: c } = client(plain.baseUrl.replace('http://', 'https://'));
    const error = await caught(c.health());
    expect(error).toBeInstanceOf(ServiceUnreachableError);
    expect(error.message).toMatch(/^cannot reach the service at 127\.0\.0\.1:\d+: TLS handshake failed \(E[A-Z_]+\)$/);
    expect(c.stats.requests).toBe(1);
    expect(plain.seen).toHaveLength(0);
  });

  it('a certificate the client does not trust: no retry', async () => {
    const tls = fileURLToPath(new URL('../fixtures/tls/', import.meta.url));
    const secure = createHttpsServer(
      { cert: readFileSync(join(tls, 'cert.pem')), key: readFileSync(join(tls, 'key.pem')) },
      (_req, res) => sendJson(res, 200, { status: 'ok' }),
    );
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = secure.address() as AddressInfo;
      const { client: c } = client(`https://localhost:${port}`);
      const error = await caught(c.health());
      expect(error).toBeInstanceOf(ServiceUnreachableError);
      expect(error.message).toMatch(
        new RegExp(`^cannot reach the service at localhost:${port}: TLS handshake failed \\([A-Z_]+\\)$`),
      );
      expect(c.stats.requests).toBe(1);
    } finally {
      secure.closeAllConnections();
      await new Promise<void>((resolve) => secure.close(() => resolve()));
    }
  });

  it('an unknown host', async () => {
    // .invalid never resolves (RFC 2606).
    const { client: c } = client('https://ivsync-test.invalid');
    const error = await caught(c.health());
    expect(error).toBeInstanceOf(ServiceUnreachableError);
    expect(error.message).toMatch(
      /^cannot reach the service at ivsync-test\.invalid: (unknown host|host name lookup failed) \(E[A-Z_]+\)$/,
    );
  });
});

describe('a refused token', () => {
  it('cuts the requests in flight and those waiting in the bucket: they fail with the same error, unsent', async () => {
    // The first request is answered 401 once the second is in flight; nothing else is ever answered.
    const svc = await server((req, res, index) => {
      if (index === 1) sendJson(pending!, 401, { message: 'invalid token' });
      if (index === 0) pending = res;
    });
    let pending: Parameters<Script>[1] | undefined;
    // Requests leave the bucket 500 ms apart: the 401 is back long before a third could go.
    const { client: c, limiter } = client(svc.baseUrl, { limiter: new RateLimiter({ rate: 2 }) });
    const calls = Array.from({ length: 8 }, () => caught(c.searchPage('authentications', {})));
    const errors = await Promise.all(calls);
    for (const error of errors) {
      expect(error).toBeInstanceOf(AuthRejectedError);
      expect(error).toBe(errors[0]);
    }
    expect(errors[0]!.message).toBe('the service rejected the token (401)');
    // The one in flight was aborted (it would have waited for the 30 s time-out), the six waiting never went out.
    expect(svc.seen).toHaveLength(2);
    expect(limiter.stats.started).toBe(2);
    expect(limiter.pending).toBe(0);
  });

  it('a request waiting out a retry backoff fails at once', async () => {
    const svc = await server((_req, res, index) => sendJson(res, index === 0 ? 500 : 401, {}));
    // A 500 first: its retry would wait most of a minute.
    const { client: c } = client(svc.baseUrl, {
      retry: { limit: 8, baseMs: 60_000, maxMs: 60_000 },
      random: () => 0.99,
    });
    const backingOff = caught(c.searchPage('authentications', {}));
    await until(() => (svc.seen.length === 1 ? true : undefined), 10_000, 'the first request');
    const refused = await caught(c.searchPage('fingerprints', {}));
    expect(refused).toBeInstanceOf(AuthRejectedError);
    expect(await backingOff).toBe(refused);
    expect(svc.seen).toHaveLength(2);
  });

  it('fails every request at once for the hold, then lets one through again', async () => {
    let clock = 0;
    const svc = await server((_req, res, index) =>
      index === 0 ? sendJson(res, 401, {}) : sendJson(res, 200, emptyPage),
    );
    const { client: c } = client(svc.baseUrl, { now: () => clock, failFastHoldMs: 60_000 });
    expect(await caught(c.searchPage('authentications', {}))).toBeInstanceOf(AuthRejectedError);
    clock += 59_999;
    expect(await caught(c.searchPage('authentications', {}))).toBeInstanceOf(AuthRejectedError);
    expect(svc.seen).toHaveLength(1);
    clock += 1;
    // A daemon's later run: the token works again.
    expect((await c.searchPage('authentications', {})).items).toEqual([]);
    expect(svc.seen).toHaveLength(2);
  });
});

describe('a healthy run', () => {
  it('rides out a refused connection after the first answer with the usual retries', async () => {
    const svc = await server((_req, res) => sendJson(res, 200, emptyPage));
    const { client: c } = client(svc.baseUrl, { retry: { limit: 3, baseMs: 1, maxMs: 5 } });
    await c.searchPage('authentications', {});
    await svc.close();
    servers = [];
    const error = await caught(c.searchPage('authentications', {}));
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect((error as RetriesExhaustedError).attempts).toBe(4);
    expect(error.message).toMatch(/connection failed \(ECONNREFUSED\)$/);
  });
});
