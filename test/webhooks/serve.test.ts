import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import { errorMessage, MAIN, runIvsync } from '../helpers/run-cli.js';
import { openSlowClient, SLOW_REQUESTS, statusOf, type SlowClient } from '../helpers/slow-client.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import {
  clientFor,
  count,
  createWebhook,
  deliveryBody,
  post,
  row,
  SECRET,
  sign,
  startHarness,
  startSim,
} from './harness.js';

const tempDir = useTempDir();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

interface Receiver {
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  /** Resolves when `text` appeared on the stream. */
  waitFor(stream: 'stdout' | 'stderr', text: string): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `ivsync webhooks serve` as a child process (the built CLI), its output watched as it comes. */
function serve(port: number, env: Record<string, string>, extraArgs: string[] = []): Receiver {
  const child = spawn(
    process.execPath,
    [MAIN, 'webhooks', 'serve', '--port', String(port), '--host', '127.0.0.1', ...extraArgs],
    { env: { PATH: process.env.PATH, ...env } },
  );
  const out = { stdout: '', stderr: '' };
  const waiters: Array<() => void> = [];
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream].on('data', (c: Buffer) => {
      out[stream] += c.toString();
      for (const wake of waiters.splice(0)) wake();
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      resolve({ code, signal });
      for (const wake of waiters.splice(0)) wake();
    }),
  );
  closers.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  return {
    child,
    stderr: () => out.stderr,
    exited,
    async waitFor(stream, text) {
      while (!out[stream].includes(text)) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`receiver exited: ${out.stderr}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

const TLS_DIR = fileURLToPath(new URL('../fixtures/tls/', import.meta.url));

/** POSTs over HTTPS trusting only `ca`; resolves with the status and the body. */
function postTls(
  url: string,
  body: string,
  headers: Record<string, string>,
  ca: Buffer,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: 'POST',
        ca,
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('ivsync webhooks serve', () => {
  it(
    'serves HTTPS with --tls-cert and --tls-key: a signed delivery over TLS lands, plain HTTP gets no answer, ' +
      'slow clients meet the configured limits',
    async () => {
      const sim = await startSim();
      closers.push(() => sim.close());
      const dir = tempDir();
      const db = join(dir, 'target.sqlite');
      const port = await freePort();
      const env = {
        IVS_DB: `sqlite:${db}`,
        IVS_WEBHOOK_SECRET: SECRET.reveal(),
        IVS_CONFIG: writeConfig(dir, { webhooks: { requestTimeoutMs: 1_500, maxConnections: 2 } }),
      };
      const receiver = serve(port, env, [
        '--tls-cert',
        join(TLS_DIR, 'cert.pem'),
        '--tls-key',
        join(TLS_DIR, 'key.pem'),
      ]);
      await receiver.waitFor('stdout', `listening on https://127.0.0.1:${port}/webhooks`);

      const [id] = sim.world.serviceIds('alice', 'authentications').filter((i) => sim.world.get(i)?.bad === null);
      const body = deliveryBody(sim, id!, 'wh-tls');
      const ca = readFileSync(join(TLS_DIR, 'cert.pem'));
      // The certificate names localhost: the client checks it against the name it dialled.
      const answer = await postTls(
        `https://localhost:${port}/webhooks`,
        body,
        { 'Service-Signature': sign(SECRET, body) },
        ca,
      );
      expect(answer.status).toBe(200);
      expect(row(db, 'authentications', id!)).toMatchObject({
        service_id: id,
        update_counter: sim.world.get(id!)!.updateCounter,
      });
      // A wrong signature over TLS is refused like over HTTP.
      expect(
        (
          await postTls(
            `https://localhost:${port}/webhooks`,
            body,
            { 'Service-Signature': sign(SECRET, `${body} `) },
            ca,
          )
        ).status,
      ).toBe(401);
      await expect(
        post(`http://127.0.0.1:${port}/webhooks`, body, { 'Service-Signature': sign(SECRET, body) }),
      ).rejects.toThrow();
      expect(count(db, 'webhook_deliveries')).toBe(1);

      // Three slow clients over TLS with room for two: the oldest makes room (503), the others time out (408).
      const slow: SlowClient[] = [];
      for (let i = 0; i < 3; i++) slow.push(await openSlowClient(`https://localhost:${port}`, SLOW_REQUESTS[1]!, ca));
      await Promise.all(slow.map((c) => c.closed));
      expect(slow.map((c) => statusOf(c.answer()))).toEqual([503, 408, 408]);

      receiver.child.kill('SIGTERM');
      expect((await receiver.exited).code).toBe(0);
    },
  );

  it('killed with SIGKILL between receipt and answer, loses nothing once the service retries', async () => {
    const sim = await startSim({ webhookRetryBaseMs: 50, webhookMaxAttempts: 14 });
    closers.push(() => sim.close());
    const client = clientFor(sim);
    closers.push(async () => client.close());
    const dir = tempDir();
    const db = join(dir, 'target.sqlite');
    const port = await freePort();
    const env = { IVS_DB: `sqlite:${db}`, IVS_WEBHOOK_SECRET: SECRET.reveal(), IVS_CONFIG: writeConfig(dir) };

    const first = serve(port, env);
    await first.waitFor('stdout', 'listening');
    // The test holds the target's write lock: the receiver can take deliveries
    // but not commit them, so a delivery in flight at the service is one the
    // receiver has received and not answered.
    const lock = new Database(db);
    lock.exec('BEGIN IMMEDIATE');
    await createWebhook(client, `http://127.0.0.1:${port}/webhooks`);
    const ids = sim.world
      .serviceIds('alice', 'authentications')
      .filter((id) => sim.world.get(id)?.bad === null)
      .slice(0, 3);
    for (const id of ids) sim.world.setResult(id, 'authentic', true);
    await vi.waitFor(
      () =>
        expect(sim.stats.deliveries.attempted).toBeGreaterThan(
          sim.stats.deliveries.succeeded + sim.stats.deliveries.failed,
        ),
      { timeout: 10_000, interval: 5 },
    );
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    lock.exec('ROLLBACK');
    lock.close();
    expect(count(db, 'webhook_deliveries')).toBe(0);

    const second = serve(port, env);
    await second.waitFor('stdout', 'listening');
    await sim.deliveries.settled();
    expect(sim.stats.deliveries.gaveUp).toBe(0);
    expect(sim.stats.deliveries.failed).toBeGreaterThan(0);
    expect(count(db, 'webhook_deliveries')).toBe(3);
    for (const id of ids) {
      expect(row(db, 'authentications', id)).toMatchObject({
        result_id: 'authentic',
        result_final: 1,
        update_counter: sim.world.get(id)!.updateCounter,
      });
    }

    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(second.stderr()).not.toContain(SECRET.reveal());
  });

  it('refuses to start without any secret, in one line', async () => {
    const dir = tempDir();
    const result = await runIvsync(['webhooks', 'serve', '--port', '0'], {
      IVS_DB: `sqlite:${join(dir, 't.sqlite')}`,
      IVS_CONFIG: writeConfig(dir),
    });
    expect(result.code).toBe(1);
    expect(errorMessage(result.stderr)).toBe(
      'no webhook secret: set IVS_WEBHOOK_SECRET, or webhooks.secret / webhooks.secrets in the config file',
    );
  });

  it('needs --port', async () => {
    const result = await runIvsync(['webhooks', 'serve'], { IVS_WEBHOOK_SECRET: SECRET.reveal() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Missing required argument: port/);
  });

  it('stops on the abort signal and closes the target', async () => {
    const dir = tempDir();
    const port = await freePort();
    const controller = new AbortController();
    const running = runIvsync(
      ['webhooks', 'serve', '--port', String(port), '--host', '127.0.0.1'],
      { IVS_DB: `sqlite:${join(dir, 't.sqlite')}`, IVS_WEBHOOK_SECRET: SECRET.reveal(), IVS_CONFIG: writeConfig(dir) },
      controller.signal,
    );
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
    }
    controller.abort();
    const result = await running;
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `webhook receiver listening on http://127.0.0.1:${port}/webhooks (account default); stop with Ctrl-C\n`,
    );
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('a graceful stop finishes the delivery in flight before closing', async () => {
    const sim = await startSim();
    closers.push(() => sim.close());
    const h = await startHarness(tempDir());
    let closed = false;
    closers.push(async () => {
      if (!closed) await h.close();
    });
    const [id] = sim.world.serviceIds('alice', 'authentications').filter((i) => sim.world.get(i)?.bad === null);
    const body = deliveryBody(sim, id!, 'wh-1');
    const url = new URL(h.url);
    let answered = 0;
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: { 'Service-Signature': sign(SECRET, body), 'Content-Length': String(Buffer.byteLength(body)) },
    });
    const response = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        answered = res.statusCode ?? 0;
        resolve(answered);
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, 10));
    while (h.receiver.inFlight === 0) await new Promise((resolve) => setImmediate(resolve));
    const closing = h.server.close().then(() => (closed = true));
    req.end(body.slice(10));
    expect(await response).toBe(200);
    await closing;
    expect(answered).toBe(200);
    await h.sink.close();
    expect(query(h.db, 'SELECT count(*) AS n FROM webhook_deliveries')).toEqual([{ n: 1 }]);
  });
});
