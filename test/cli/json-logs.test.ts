import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runIvsync, spawnIvsync, type Child } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { until } from '../helpers/wait.js';

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 60, rate: 2000, burst: 2000, seed: 9 });
const children: Child[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface LogRecord {
  level: string;
  time: string;
  msg: string;
  run?: string;
  daemon?: string;
  [key: string]: unknown;
}

/**
 * Every line of stderr, each parsed as a JSON record with an ISO time and a level name; throws on a line that is not.
 */
function records(stderr: string): LogRecord[] {
  const lines = stderr.split('\n').filter((l) => l !== '');
  return lines.map((line) => {
    const record = JSON.parse(line) as LogRecord;
    expect(record.time, line).toMatch(ISO);
    expect(LEVELS, line).toContain(record.level);
    expect(typeof record.msg, line).toBe('string');
    return record;
  });
}

function setup(url: string, token = 'test-token') {
  const dir = tempDir();
  const db = join(dir, 'ivsync.sqlite');
  return {
    db,
    env: {
      IVS_BASE_URL: url,
      IVS_API_TOKEN: token,
      IVS_DB: `sqlite:${db}`,
      IVS_CONFIG: writeConfig(dir),
      IVS_RATE: '2000',
      IVS_LOG_LEVEL: 'debug',
    },
  };
}

const runIds = (db: string, status?: string): string[] =>
  query<{ id: string }>(
    db,
    `SELECT id FROM sync_runs ${status ? 'WHERE status = ?' : ''} ORDER BY started_at`,
    ...(status ? [status] : []),
  ).map((r) => r.id);

describe('stderr off a terminal: one JSON record per line', () => {
  it('a backfill: every line, the plan included, carries the run id sync_runs holds', async () => {
    const sim = await simulator();
    const { db, env } = setup(sim.url);
    const backfill = await spawnIvsync(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)], env)
      .exited;
    expect(backfill.code).toBe(0);
    const logged = records(backfill.stderr);
    expect(new Set(logged.map((r) => r.run))).toEqual(new Set(runIds(db)));
    expect(runIds(db)).toHaveLength(1);
    expect(logged.some((r) => r.level === 'info' && /windows to page/.test(r.msg))).toBe(true);
    expect(logged.some((r) => r.level === 'debug')).toBe(true);
  });

  it('a run that fails (a token the service refuses): the final error is a record of the failed run', async () => {
    const sim = await simulator();
    const { db, env } = setup(sim.url, 'not-the-token');
    const result = await spawnIvsync(['sync', '--since', String(HISTORY_START)], env).exited;
    expect(result.code).toBe(1);
    const logged = records(result.stderr);
    const last = logged.at(-1)!;
    expect(last).toMatchObject({ level: 'error', error: { code: expect.any(String) as string } });
    expect(runIds(db, 'failed')).toEqual([last.run]);
    expect(result.stderr).not.toContain('not-the-token');
  });

  it('a usage mistake is a JSON record too', async () => {
    const result = await runIvsync(['backfill', '--from', 'yesterday', '--to', '2025-01-01']);
    expect(result.code).toBe(2);
    expect(records(result.stderr)).toEqual([
      expect.objectContaining({ level: 'error', error: expect.objectContaining({ code: 'BAD_TIME' }) as unknown }),
    ]);
  });

  it(
    'the daemon stopped by SIGTERM: the notice, its own ' + 'records under its id, each failed run under the run id',
    async () => {
      const sim = await simulator();
      const { db, env } = setup(sim.url, 'not-the-token');
      const child = spawnIvsync(['daemon', '--schedule', '* * * * * *', '--since', String(HISTORY_START)], env);
      children.push(child);
      await until(
        () => (/"msg":"run failed"/.test(child.stderr()) && runIds(db, 'failed').length > 0 ? true : undefined),
        30_000,
        'a failed run',
      );
      child.kill('SIGTERM');
      const end = await child.exited;
      expect(end.code).toBe(0);
      const logged = records(end.stderr);
      const daemonIds = new Set(logged.flatMap((r) => (r.daemon === undefined ? [] : [r.daemon])));
      expect(daemonIds.size).toBe(1);
      expect(logged).toContainEqual(expect.objectContaining({ level: 'warn', signal: 'SIGTERM' }));
      const failed = logged.filter((r) => r.msg === 'run failed');
      expect(failed.length).toBeGreaterThan(0);
      const ids = runIds(db);
      for (const r of failed) expect(ids).toContain(r.run);
      expect(ids).not.toContain([...daemonIds][0]);
    },
  );
});
