import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { freePort as closedPort } from '../helpers/free-port.js';
import { errorMessage, spawnIvsync } from '../helpers/run-cli.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_START } from '../helpers/truth.js';
import { readTarget } from '../targets/read-target.js';
import { useSimulators } from '../helpers/simulators.js';

/*
 * A wrong base URL or token must stop a run within seconds, with one line.
 * The CLI runs as a child process with the default retry policy (8 retries,
 * backoff up to 30 s): before, these runs took 40 to 80 s and a bad token
 * still sent a request per worker.
 */

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
const simulator = useSimulators({});

/** A target and a config with the default http settings (writeConfig's fast test retries would hide the difference). */
function envFor(baseUrl: string, token: string): Record<string, string> {
  const dir = tempDir();
  return {
    IVS_BASE_URL: baseUrl,
    IVS_API_TOKEN: token,
    IVS_DB: `sqlite:${join(dir, 'ivsync.sqlite')}`,
    IVS_CONFIG: writeConfig(dir, { http: {} }),
  };
}

const lines = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '');

/** Runs the built CLI; resolves with its result and how long it ran. */
async function timed(args: readonly string[], env: Record<string, string>) {
  const started = Date.now();
  const result = await spawnIvsync(args, env).exited;
  return { ...result, ms: Date.now() - started };
}

describe('a base URL where no service listens', () => {
  it.each([
    ['sync', ['sync', '--since', String(HISTORY_START)]],
    ['health', ['health']],
  ])('%s stops at once with exit 1 and one line', async (_name, args) => {
    const port = await closedPort();
    const env = envFor(`http://127.0.0.1:${port}`, 'tok_closed_port_123');
    const r = await timed(args, env);
    // A bound that says "not a minute of retries", not a speed target.
    expect(r.ms).toBeLessThan(15_000);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(errorMessage(r.stderr)).toBe(
      `cannot reach the service at 127.0.0.1:${port}: connection refused (ECONNREFUSED)`,
    );
    expect(r.stdout).toBe('');
  });
});

describe('a token the service refuses', () => {
  it('sync sends a request or two, not one per worker, and exits 1 with one line', async () => {
    sim = await simulator({ sessions: 50 });
    // Two requests a second: the first 401 is back long before the next token is due, however busy the machine.
    const env: Record<string, string> = { ...envFor(sim.url, 'tok_wrong_ZZZ_987654321'), IVS_RATE: '2' };
    const r = await timed(['sync', '--since', String(HISTORY_START)], env);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(errorMessage(r.stderr)).toBe('the service rejected the token (401)');
    // 24 workers per resource wait in one bucket: the first 401 cancels the rest.
    expect(sim.stats.requests).toBeLessThanOrEqual(2);
    const [run] = await readTarget(env.IVS_DB!, 'SELECT status, requests, error FROM sync_runs');
    expect(run).toMatchObject({ status: 'failed', error: 'the service rejected the token (401)' });
    expect(Number(run!.requests)).toBeLessThanOrEqual(2);
  });
});

describe('a base URL with a path (https://host/v1): every route answers 404', () => {
  it.each([
    ['sync', ['sync', '--since', String(HISTORY_START)]],
    ['health', ['health']],
  ])('%s stops at once with exit 1, naming the URL requested and the root to give instead', async (_name, args) => {
    sim = await simulator({ sessions: 50 });
    const env: Record<string, string> = { ...envFor(`${sim.url}/v1`, 'test-token'), IVS_RATE: '2' };
    const r = await timed(args, env);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    const route = args[0] === 'health' ? 'GET' : 'POST';
    expect(errorMessage(r.stderr)).toMatch(
      new RegExp(
        `^${route} ${sim.url}/v1/v1/\\S+ answered 404 \\(no such route\\): the base URL ${sim.url}/v1 has a ` +
          `path \\(/v1\\); .*--base-url ${sim.url}$`,
      ),
    );
    expect(r.stderr).not.toContain('retries');
    expect(r.stderr).not.toContain('test-token');
    // The first 404 stops the other workers of the client: no request per window.
    expect(sim.stats.requests).toBeLessThanOrEqual(2);
    if (args[0] === 'sync') {
      const [run] = await readTarget(env.IVS_DB!, 'SELECT status, error FROM sync_runs');
      expect(run).toMatchObject({ status: 'failed' });
      expect(String(run!.error)).toContain('answered 404 (no such route)');
    }
  });
});
