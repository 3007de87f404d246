import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toIsoMicros } from '../../src/normalize/time.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { accountLease } from '../../src/store/leases/lease-names.js';
import { spawnIvsync, type Child } from '../helpers/run-cli.js';
import { execute, query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { servedUrl } from '../helpers/served-url.js';
import { until } from '../helpers/wait.js';
import { TWO_TOKENS, twoAccountEnv } from '../helpers/two-accounts.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await sim?.close();
  sim = undefined;
});

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

async function finished(
  base: string,
  id: string,
): Promise<{
  state: string;
  live: { report: Record<string, unknown> | null; error: string | null };
  run: { status: string };
}> {
  return until(
    async () => {
      const res = await fetch(`${base}/runs/${id}`);
      const body = (await res.json()) as {
        state: string;
        live: { report: Record<string, unknown> | null; error: string | null };
        run: { status: string };
      };
      return body.state === 'running' ? undefined : body;
    },
    60_000,
    `run ${id} to end`,
  );
}

describe('POST /runs', () => {
  it("starts runs through the daemon's leases: 202 with the id, 409 naming the holder, state and report", async () => {
    sim = await startSimulator({
      sessions: 400,
      seed: 51,
      rate: 200,
      burst: 200,
      latencyMs: [30, 60],
      from: HISTORY_START,
      to: HISTORY_END,
      tokens: TWO_TOKENS,
    });
    const { db, env } = twoAccountEnv(tempDir(), sim.url);
    // A schedule that does not fire during the test: every run here is asked for.
    const daemon = spawnIvsync(
      ['daemon', '--port', '0', '--schedule', '0 0 1 1 *', '--since', String(HISTORY_START)],
      env,
    );
    children.push(daemon);
    const base = await servedUrl(daemon);

    const accepted = await post(`${base}/runs`, {
      account: 'a1',
      command: 'backfill',
      from: HISTORY_START,
      to: new Date(HISTORY_END * 1000).toISOString(),
    });
    expect(accepted.status).toBe(202);
    const { id } = (await accepted.json()) as { id: string };
    expect(accepted.headers.get('location')).toBe(`/runs/${id}`);
    // The account is busy with it: a second run is refused, naming the holder.
    const busy = await post(`${base}/runs`, { account: 'a1', command: 'sync' });
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as { holder: string }).holder).toBe(`run ${id} of this daemon`);

    const ended = await finished(base, id);
    expect(ended.state).toBe('succeeded');
    expect(ended.run.status).toBe('succeeded');
    const [row] = query<{ command: string; account: string; status: string; items_written: number }>(
      db,
      'SELECT command, account, status, items_written FROM sync_runs WHERE id = ?',
      id,
    );
    expect(row).toMatchObject({ command: 'backfill', account: 'a1', status: 'succeeded' });
    expect(ended.live.report).toMatchObject({ run: id, written: row!.items_written });

    // Another process holds a2's lease: refused with its name, nothing started.
    const now = toIsoMicros(Date.now() / 1000);
    execute(
      db,
      'INSERT INTO sync_leases (name, holder, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?)',
      accountLease('a2'),
      'elsewhere:1:other',
      now,
      now,
    );
    const held = await post(`${base}/runs`, { account: 'a2', command: 'sync' });
    expect(held.status).toBe(409);
    expect(((await held.json()) as { holder: string }).holder).toBe('elsewhere:1:other');
    expect(query(db, "SELECT id FROM sync_runs WHERE account = 'a2'")).toEqual([]);

    // A sync of a1 on demand continues from the backfill's checkpoints.
    const sync = await post(`${base}/runs`, { account: 'a1', command: 'sync' });
    expect(sync.status).toBe(202);
    const synced = await finished(base, ((await sync.json()) as { id: string }).id);
    expect(synced.state).toBe('succeeded');

    for (const [body, status] of [
      [{ account: 'a1', command: 'drop' }, 400],
      [{ account: 'a1', command: 'backfill' }, 400],
      [{ account: 'a1', command: 'sync', from: 'yesterday-ish' }, 400],
      [{ account: 'nobody', command: 'sync' }, 404],
    ] as const) {
      expect((await post(`${base}/runs`, body)).status).toBe(status);
    }
    expect((await fetch(`${base}/runs`, { method: 'POST', body: 'not json' })).status).toBe(400);
    expect((await fetch(`${base}/runs/none-such`)).status).toBe(404);
    daemon.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(0);
  }, 120_000);

  it('beyond loopback the daemon will not start without IVS_UI_TOKEN, and POST /runs needs it', async () => {
    sim = await startSimulator({ sessions: 20, seed: 52 });
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: writeConfig(dir),
    };
    const args = [
      'daemon',
      '--port',
      '0',
      '--host',
      '0.0.0.0',
      '--schedule',
      '0 0 1 1 *',
      '--since',
      String(HISTORY_START),
    ];
    const refused = spawnIvsync(args, env);
    children.push(refused);
    const end = await refused.exited;
    expect(end.code).not.toBe(0);
    expect(end.stderr.trim().split('\n')).toHaveLength(1);
    expect(end.stderr).toMatch(/needs IVS_UI_TOKEN set/);

    const daemon = spawnIvsync(args, { ...env, IVS_UI_TOKEN: 'daemon-ui-token' });
    children.push(daemon);
    const base = (await servedUrl(daemon)).replace('0.0.0.0', '127.0.0.1');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    for (const path of ['/metrics', '/', '/api/status']) expect((await fetch(`${base}${path}`)).status).toBe(401);
    expect((await post(`${base}/runs`, { account: 'default', command: 'sync' })).status).toBe(401);
    const asked = await fetch(`${base}/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer daemon-ui-token' },
      body: JSON.stringify({ account: 'default', command: 'sync' }),
    });
    expect(asked.status).toBe(202);
    const id = ((await asked.json()) as { id: string }).id;
    const state = await until(
      async () => {
        const body = (await (
          await fetch(`${base}/runs/${id}`, { headers: { Authorization: 'Bearer daemon-ui-token' } })
        ).json()) as { state: string };
        return body.state === 'running' ? undefined : body.state;
      },
      60_000,
      'the run to end',
    );
    expect(state).toBe('succeeded');
    expect(daemon.stderr()).not.toContain('daemon-ui-token');
  }, 90_000);
});
