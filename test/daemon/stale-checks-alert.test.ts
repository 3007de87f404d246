import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { startAlertReceiver, type AlertReceiver } from '../helpers/alert-receiver.js';
import { runIvsync, spawnIvsync, type Child } from '../helpers/run-cli.js';
import { servedUrl } from '../helpers/served-url.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_START } from '../helpers/truth.js';
import { until } from '../helpers/wait.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
let receiver: AlertReceiver | undefined;
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await sim?.close();
  await receiver?.close();
  sim = undefined;
  receiver = undefined;
});

const succeeded = (db: string): number =>
  query<{ n: number }>(db, "SELECT COUNT(*) AS n FROM sync_runs WHERE status = 'succeeded'")[0]?.n ?? 0;

describe('the staleness alert of a running daemon', () => {
  it('a refresh budget too small for the non-final sessions sends one "checks_stale", past the bound', async () => {
    // Most sessions stay non-final; one request a run re-checks at most one page of them.
    sim = await startSimulator({ sessions: 400, seed: 74, nonFinalShare: 0.9, rate: 1000, burst: 1000 });
    receiver = await startAlertReceiver();
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: writeConfig(dir),
      IVS_RATE: '1000',
      IVS_ALERTS_URL: receiver.url,
    };
    // A run every second: the bound is three seconds, no alerts.staleCheckSeconds set.
    const child = spawnIvsync(
      ['daemon', '--schedule', '* * * * * *', '--since', String(HISTORY_START), '--refresh-budget', '1', '--port', '0'],
      env,
    );
    children.push(child);
    await servedUrl(child);
    await until(
      () => (receiver!.messages.some((m) => m.kind === 'checks_stale') ? true : undefined),
      60_000,
      'the stale message',
    );
    // More runs, as stale as before: no second message.
    const after = succeeded(db);
    await until(() => (succeeded(db) >= after + 3 ? true : undefined), 45_000, 'three more syncs');
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);

    expect(receiver.messages.map((m) => m.kind)).toEqual(['checks_stale']);
    const [stale] = receiver.messages;
    expect(stale).toMatchObject({ severity: 'problem', account: 'default', bound_seconds: 3 });
    expect(stale!.check_age_seconds).toBeGreaterThan(3);
    expect(['authentications', 'fingerprints']).toContain(stale!.resource);
    // The target agrees: status --json shows checks older than the bound.
    const status = await runIvsync(['status', '--json'], env);
    expect(status.code).toBe(0);
    const rows = (JSON.parse(status.stdout) as { refresh: Array<{ checkAgeSeconds: { max: number | null } }> }).refresh;
    expect(Math.max(...rows.map((r) => r.checkAgeSeconds.max ?? 0))).toBeGreaterThan(3);
  }, 150_000);
});
