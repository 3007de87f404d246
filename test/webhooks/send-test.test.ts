import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../helpers/wait.js';
import { freePort } from '../helpers/free-port.js';
import { errorMessage, runIvsync, spawnIvsync, type Child } from '../helpers/run-cli.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';

/*
 * `webhooks send-test` against a real `webhooks serve` (the built CLI as a
 * child process): the signed test delivery lands in webhook_deliveries, and a
 * wrong secret or no receiver is one line naming the URL.
 */

const tempDir = useTempDir();
const SECRET = 'send-test-secret-0123456789';
const running: Child[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) {
    child.kill('SIGTERM');
    await child.exited;
  }
});

async function receiver(): Promise<{ port: number; db: string; env: Record<string, string> }> {
  const dir = tempDir();
  const db = join(dir, 'ivsync.sqlite');
  const env = { IVS_DB: `sqlite:${db}`, IVS_CONFIG: writeConfig(dir), IVS_WEBHOOK_SECRET: SECRET };
  const port = await freePort();
  const child = spawnIvsync(['webhooks', 'serve', '--port', String(port), '--host', '127.0.0.1'], env);
  running.push(child);
  await until(() => child.stdout().includes('listening on'), {
    limitMs: 30_000,
    what: 'the receiver to listen',
    child,
  });
  return { port, db, env };
}

describe('ivsync webhooks send-test', () => {
  it('posts a signed delivery that the receiver verifies and stores', async () => {
    const { port, db, env } = await receiver();
    // The same configuration as the receiver, so the same secret and path; only the port is named.
    const r = await runIvsync(['webhooks', 'send-test', '--port', String(port), '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { url: string; status: number; answer: { status: string } };
    expect(out).toMatchObject({ url: `http://127.0.0.1:${port}/webhooks`, status: 200, answer: { status: 'ok' } });
    const rows = query<{ channel: string; signature_ok: number; items: number }>(
      db,
      'SELECT channel, signature_ok, items FROM webhook_deliveries',
    );
    expect(rows).toEqual([{ channel: 'ivsync-send-test', signature_ok: 1, items: 0 }]);
    // A second one is a new delivery, not a repeat of the first.
    expect((await runIvsync(['webhooks', 'send-test', '--url', `http://127.0.0.1:${port}/webhooks`], env)).code).toBe(
      0,
    );
    expect(query(db, 'SELECT count(*) AS n FROM webhook_deliveries')).toEqual([{ n: 2 }]);
    expect(query(db, 'SELECT count(*) AS n FROM authentications')).toEqual([{ n: 0 }]);
  });

  it('a secret the receiver does not hold is refused (401): one line, nothing stored, no secret shown', async () => {
    const { port, db, env } = await receiver();
    const wrong = 'another-secret-9876543210';
    const r = await runIvsync(['webhooks', 'send-test', '--port', String(port)], { ...env, IVS_WEBHOOK_SECRET: wrong });
    expect(r.code).toBe(1);
    expect(errorMessage(r.stderr)).toBe(
      `the receiver at http://127.0.0.1:${port}/webhooks answered 401: {"error":"the signature does not match"}`,
    );
    expect(r.stdout + r.stderr).not.toContain(wrong);
    expect(query(db, 'SELECT count(*) AS n FROM webhook_deliveries')).toEqual([{ n: 0 }]);
  });

  it('no receiver listening: one line saying where it looked', async () => {
    const port = await freePort();
    const r = await runIvsync(['webhooks', 'send-test', '--port', String(port)], {
      IVS_WEBHOOK_SECRET: SECRET,
      IVS_CONFIG: writeConfig(tempDir()),
    });
    expect(r.code).toBe(1);
    expect(errorMessage(r.stderr)).toMatch(
      new RegExp(`^cannot reach the receiver at http://127\\.0\\.0\\.1:${port}/webhooks: .*ECONNREFUSED`),
    );
  });

  it('without a secret it says so before sending anything', async () => {
    const r = await runIvsync(['webhooks', 'send-test'], { IVS_CONFIG: writeConfig(tempDir()) });
    expect(r.code).toBe(1);
    expect(errorMessage(r.stderr)).toMatch(/^no webhook secret to sign with/);
  });
});
