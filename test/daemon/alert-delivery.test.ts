import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertMessage } from '../../src/daemon/alert-message.js';
import { Secret } from '../../src/config/secret.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runIvsync, spawnIvsync, type Child } from '../helpers/run-cli.js';
import { execute, query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { signedDelivery } from '../webhooks/harness.js';
import { parsePrometheusText } from './prometheus-text.js';
import { servedUrl } from '../helpers/served-url.js';
import { until } from '../helpers/wait.js';
import {
  HOOK_SECRET,
  startAlertReceiver as startReceiver,
  type AlertReceiver as Receiver,
} from '../helpers/alert-receiver.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
let receiver: Receiver | undefined;
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await sim?.close();
  await receiver?.close();
  sim = undefined;
  receiver = undefined;
});

const count = (db: string, sql: string): number => (existsSync(db) ? (query<{ n: number }>(db, sql)[0]?.n ?? 0) : 0);

describe('alerts from a running daemon', () => {
  it('an outage of the service sends one "failed" and one "recovered", in order, past a refusing hook', async () => {
    sim = await startSimulator({ sessions: 60, seed: 71 });
    receiver = await startReceiver(1);
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    // No request retries: a 500 fails the run at once. The alert's own retry waits a second.
    const config = writeConfig(dir, {
      http: { timeoutMs: 5_000, retryLimit: 0 },
      // A run every second leaves no refresh budget: stale checks are not what this test is about.
      alerts: { url: { env: 'HOOK_URL' }, retries: 3, staleCheckSeconds: 86_400 },
    });
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: config,
      HOOK_URL: receiver.url,
    };
    const child = spawnIvsync(
      ['daemon', '--schedule', '* * * * * *', '--since', String(HISTORY_START), '--port', '0'],
      env,
    );
    children.push(child);
    const base = await servedUrl(child);
    await until(
      () => (count(db, "SELECT COUNT(*) AS n FROM sync_runs WHERE status = 'succeeded'") > 0 ? true : undefined),
      45_000,
      'a sync that succeeded',
    );

    // The service goes down for two runs: fewer than the three in a row that start the backoff.
    sim.setFaults('500=1');
    await until(
      () => (count(db, "SELECT COUNT(*) AS n FROM sync_runs WHERE status = 'failed'") >= 2 ? true : undefined),
      45_000,
      'two failed syncs',
    );
    sim.setFaults('');
    const failedRuns = query<{ id: string }>(
      db,
      "SELECT id FROM sync_runs WHERE status = 'failed' ORDER BY started_at",
    );
    await until(
      () => (receiver!.messages.some((m) => m.kind === 'run_recovered') ? true : undefined),
      45_000,
      'the recovered message',
    );
    // A few more runs succeed: they add no message.
    const after = count(db, "SELECT COUNT(*) AS n FROM sync_runs WHERE status = 'succeeded'");
    await until(
      () =>
        count(db, "SELECT COUNT(*) AS n FROM sync_runs WHERE status = 'succeeded'") >= after + 2 ? true : undefined,
      45_000,
      'two more syncs',
    );

    const messages = receiver.messages;
    expect(messages.map((m) => m.kind)).toEqual(['run_failed', 'run_recovered']);
    const [failed, recovered] = messages as [AlertMessage, AlertMessage];
    expect(failed).toMatchObject({
      severity: 'problem',
      account: 'default',
      command: 'sync',
      run_id: failedRuns[0]!.id,
      link: `${base}/`,
    });
    expect(failed.error).toMatch(/500/);
    expect(failed.text).toContain(`ivsync [default]: sync failed (run ${failedRuns[0]!.id})`);
    expect(recovered).toMatchObject({
      severity: 'resolved',
      account: 'default',
      command: 'sync',
      failures: failedRuns.length,
    });
    expect(Date.parse(recovered.since!)).toBeLessThanOrEqual(Date.parse(recovered.at));
    // The first attempt was refused (503) and retried: one more request than messages.
    expect(receiver.requests).toBe(3);

    const metrics = parsePrometheusText(await (await fetch(`${base}/metrics`)).text());
    const sent = metrics
      .get('ivsync_alerts_total')
      ?.samples.filter((s) => s.labels.outcome === 'sent')
      .map((s) => [s.labels.kind, s.value]);
    expect(sent).toEqual([
      ['run_failed', 1],
      ['run_recovered', 1],
    ]);
    child.kill('SIGTERM');
    const end = await child.exited;
    expect(end.code).toBe(0);
    expect(end.stderr).not.toContain(HOOK_SECRET);
  }, 120_000);

  it('a receiver that is down never fails a run: the alert is logged by host only and counted as failed', async () => {
    sim = await startSimulator({ sessions: 40, seed: 72 });
    // A port that listened once and is closed now: every attempt is refused.
    const gone = await startReceiver();
    const url = gone.url;
    await gone.close();
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const config = writeConfig(dir, { http: { timeoutMs: 5_000, retryLimit: 0 }, alerts: { retries: 1 } });
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: config,
      IVS_ALERTS_URL: url,
    };
    sim.setFaults('500=1');
    const child = spawnIvsync(
      ['daemon', '--schedule', '* * * * * *', '--since', String(HISTORY_START), '--port', '0'],
      env,
    );
    children.push(child);
    const base = await servedUrl(child);
    const failedCount = await until(
      async () => {
        const samples =
          parsePrometheusText(await (await fetch(`${base}/metrics`)).text()).get('ivsync_alerts_total')?.samples ?? [];
        return samples.find((s) => s.labels.kind === 'run_failed' && s.labels.outcome === 'failed')?.value;
      },
      45_000,
      'the alert given up',
    );
    expect(failedCount).toBe(1);
    // The service back: runs go on and succeed while the receiver stays down.
    sim.setFaults('');
    await until(
      () => (count(db, "SELECT COUNT(*) AS n FROM sync_runs WHERE status = 'succeeded'") > 0 ? true : undefined),
      45_000,
      'a sync that succeeded',
    );
    child.kill('SIGTERM');
    const end = await child.exited;
    expect(end.code).toBe(0);
    const origin = new URL(url).origin;
    expect(end.stderr).toContain(`alert not delivered to ${origin}/…`);
    expect(end.stderr).not.toContain(HOOK_SECRET);
  }, 120_000);

  it('a finished backfill, verify drift and a webhook stream that went quiet each send one message', async () => {
    sim = await startSimulator({ sessions: 120, seed: 73, rate: 2000, burst: 2000 });
    receiver = await startReceiver();
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const secret = 'hook-secret-of-the-alerting-daemon';
    // A stream is quiet a second after its last delivery.
    const config = writeConfig(dir, {
      verify: { budget: 500 },
      webhooks: { healthySeconds: 1 },
      alerts: { staleCheckSeconds: 86_400 },
    });
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: config,
      IVS_RATE: '2000',
      IVS_ALERTS_URL: receiver.url,
      IVS_WEBHOOK_SECRET: secret,
    };
    expect(
      (await runIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env)).code,
    ).toBe(0);
    expect((await runIvsync(['sync'], env)).code).toBe(0);
    // Lost from the target inside a sealed window: only a verify finds it.
    const [lost] = query<{ service_id: string }>(
      db,
      'SELECT s.service_id FROM authentications s JOIN sync_windows w ' +
        "ON w.resource = 'authentications' AND w.status = 'sealed' " +
        'AND s.created_epoch >= w.window_start AND s.created_epoch < w.window_end LIMIT 1',
    );
    execute(db, 'DELETE FROM authentications WHERE service_id = ?', lost!.service_id);

    const args = [
      'daemon',
      '--schedule',
      '* * * * * *',
      '--since',
      String(HISTORY_START),
      '--verify-every',
      '1h',
      '--port',
      '0',
    ];
    const child = spawnIvsync(
      [...args, '--backfill-from', String(HISTORY_START), '--backfill-to', String(HISTORY_END)],
      env,
    );
    children.push(child);
    const base = await servedUrl(child);
    const kinds = () => receiver!.messages.map((m) => m.kind);
    await until(
      () => (kinds().includes('verify_drift') && kinds().includes('backfill_finished') ? true : undefined),
      45_000,
      'the drift and backfill messages',
    );
    // The stream never delivered: it is not set up yet, and says nothing. One delivery, then a quiet second.
    const { body, headers } = signedDelivery('alert-delivery', new Secret(secret));
    expect(
      (
        await fetch(`${base}/webhooks`, {
          method: 'POST',
          body,
          headers: { 'Content-Type': 'application/json', ...headers },
        })
      ).status,
    ).toBe(200);
    await until(() => (kinds().includes('webhooks_quiet') ? true : undefined), 45_000, 'the quiet message');
    // A few more ticks (and their verify, not due) add nothing.
    const after = count(db, "SELECT COUNT(*) AS n FROM sync_runs WHERE command = 'sync' AND status = 'succeeded'");
    await until(
      () =>
        count(db, "SELECT COUNT(*) AS n FROM sync_runs WHERE command = 'sync' AND status = 'succeeded'") >= after + 2
          ? true
          : undefined,
      45_000,
      'two more syncs',
    );
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);

    expect([...kinds()].sort()).toEqual(['backfill_finished', 'verify_drift', 'webhooks_quiet']);
    const drift = receiver.messages.find((m) => m.kind === 'verify_drift')!;
    const [verifyRun] = query<{ id: string }>(db, 'SELECT id FROM verify_runs');
    expect(drift).toMatchObject({
      account: 'default',
      command: 'verify',
      resource: 'authentications',
      findings: 1,
      run_id: verifyRun!.id,
    });
    expect(receiver.messages.find((m) => m.kind === 'webhooks_quiet')!.last_delivery_at).not.toBeNull();
    expect(JSON.stringify(receiver.messages)).not.toContain(secret);
  }, 120_000);

  it('a crash loop sends one "failed" and one "backoff", however many ticks fail', async () => {
    sim = await startSimulator({ sessions: 20, seed: 74 });
    receiver = await startReceiver();
    const dir = tempDir();
    const db = join(dir, 'ivsync.sqlite');
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'revoked-token',
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: writeConfig(dir, { alerts: { staleCheckSeconds: 86_400 } }),
      IVS_ALERTS_URL: receiver.url,
    };
    const child = spawnIvsync(
      ['daemon', '--schedule', '* * * * * *', '--since', String(HISTORY_START), '--port', '0'],
      env,
    );
    children.push(child);
    const base = await servedUrl(child);
    await until(
      () => (receiver!.messages.some((m) => m.kind === 'backoff') ? true : undefined),
      45_000,
      'the backoff message',
    );
    // /healthz says the same; the daemon now waits a minute, and its failures so far sent nothing more.
    expect(((await (await fetch(`${base}/healthz`)).json()) as { reason: string }).reason).toMatch(/crash loop/);
    child.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
    expect(receiver.messages.map((m) => m.kind)).toEqual(['run_failed', 'backoff']);
    const backoff = receiver.messages[1]!;
    expect(backoff).toMatchObject({ severity: 'problem', account: null, failures: 3 });
    expect(Date.parse(backoff.until!)).toBeGreaterThan(Date.parse(backoff.at));
    expect(backoff.error).toMatch(/^default: /);
    expect(count(db, "SELECT COUNT(*) AS n FROM sync_runs WHERE status = 'failed'")).toBe(3);
    expect(JSON.stringify(receiver.messages)).not.toContain('revoked-token');
  }, 90_000);
});
