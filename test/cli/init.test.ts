import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { errorMessage, runIvsync, spawnIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 20 });

function files(dir: string) {
  return { yaml: join(dir, 'ivsync.yaml'), env: join(dir, 'ivsync.env') };
}

const healthChecks = (sim: { stats: { byRoute: Record<string, Record<string, number>> } }) =>
  Object.values(sim.stats.byRoute['GET /v1/health'] ?? {}).reduce((n, c) => n + c, 0);

describe('ivsync init', () => {
  it('writes the config and a 0600 env file, the loader reads them, and the token is checked', async () => {
    const sim = await simulator();
    const dir = join(tempDir(), 'config');
    const r = await runIvsync(['init', '--dir', dir], { IVS_BASE_URL: sim.url, IVS_API_TOKEN: 'test-token' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const { yaml, env } = files(dir);
    expect(statSync(env).mode & 0o777).toBe(0o600);
    // The written file loads to the defaults: the same Config as no file at all.
    const clock = () => Date.now();
    const loaded = loadConfig({ flags: { config: yaml }, env: {}, clock });
    expect({ ...loaded, configFile: undefined }).toEqual(
      loadConfig({ flags: {}, env: {}, clock, fileExists: () => false }),
    );
    // The env template names the four variables, commented until filled in.
    const envText = readFileSync(env, 'utf8');
    for (const name of ['IVS_BASE_URL', 'IVS_API_TOKEN', 'IVS_WEBHOOK_SECRET', 'IVS_DB'])
      expect(envText).toMatch(new RegExp(`^# ${name}=`, 'm'));
    expect(healthChecks(sim)).toBe(1);
    expect(r.stdout).toMatch(/credentials: default ok/);
    // The next three commands, naming the file since the default lookup would not find it.
    const next = r.stdout.split('next:\n')[1]!.trim().split('\n');
    expect(next.map((l) => /ivsync --config \S+ (\w+)/.exec(l)?.[1])).toEqual(['backfill', 'sync', 'status']);
  });

  it('says clearly that it skipped the check without a base URL and token, and sends nothing', async () => {
    const sim = await simulator();
    const dir = tempDir();
    const r = await runIvsync(['init', '--dir', dir, '--json'], {});
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { credentials: { status: string; reason: string }; next: string[] };
    expect(out.credentials).toEqual({
      status: 'skipped',
      reason: 'no base URL (--base-url or IVS_BASE_URL) and no token (--token or IVS_API_TOKEN)',
    });
    expect(out.next).toHaveLength(3);
    expect(healthChecks(sim)).toBe(0);
    expect(existsSync(files(dir).yaml)).toBe(true);
  });

  it('a bad token exits 1 with one line, and the files stay', async () => {
    const sim = await simulator();
    const dir = tempDir();
    const r = await runIvsync(['init', '--dir', dir, '--base-url', sim.url, '--token', 'wrong-token-123'], {});
    expect(r.code).toBe(1);
    expect(errorMessage(r.stderr)).toBe('the service rejected the token (401)');
    expect(existsSync(files(dir).yaml)).toBe(true);
    // The base URL given as a flag is filled in; the token never is.
    const envText = readFileSync(files(dir).env, 'utf8');
    expect(envText).toMatch(new RegExp(`^IVS_BASE_URL=${sim.url}$`, 'm'));
    expect(envText).not.toContain('wrong-token-123');
    expect(r.stdout + r.stderr).not.toContain('wrong-token-123');
  });

  it('refuses to overwrite without --force, and --force rewrites both with mode 0600', async () => {
    const dir = tempDir();
    const { yaml, env } = files(dir);
    writeFileSync(yaml, 'db: sqlite:mine.sqlite\n');
    const refused = await runIvsync(['init', '--dir', dir], {});
    expect(refused.code).toBe(1);
    expect(errorMessage(refused.stderr)).toBe(`${yaml} exists already: nothing written (--force replaces it)`);
    expect(readFileSync(yaml, 'utf8')).toBe('db: sqlite:mine.sqlite\n');
    expect(existsSync(env)).toBe(false);

    writeFileSync(env, 'IVS_API_TOKEN=x\n');
    chmodSync(env, 0o644);
    const forced = await runIvsync(['init', '--dir', dir, '--force'], {});
    expect(forced.code).toBe(0);
    expect(readFileSync(yaml, 'utf8')).toContain('windowSeconds: 604800');
    expect(statSync(env).mode & 0o777).toBe(0o600);
  });
});

describe('the env file init writes is read by the commands after it', () => {
  it('init, the token filled in, then health in the same folder succeeds with no variable set', async () => {
    const sim = await simulator();
    const cwd = tempDir();
    // A user's shell: no IVS_* variable at all, only PATH (the child gets exactly this env).
    const init = await spawnIvsync(['init', '--base-url', sim.url], {}, cwd).exited;
    expect(init.code).toBe(0);
    const envPath = join(cwd, 'config', 'ivsync.env');
    // What the user does next: fill in the token where the template leaves it.
    writeFileSync(envPath, readFileSync(envPath, 'utf8').replace(/^# IVS_API_TOKEN=$/m, 'IVS_API_TOKEN=test-token'));
    const before = healthChecks(sim);
    const health = await spawnIvsync(['health', '--json'], {}, cwd).exited;
    expect(health.stderr).toBe('');
    expect(health.code).toBe(0);
    expect(JSON.parse(health.stdout)).toEqual([{ account: 'default', apiVersion: '1.4', status: 'ok' }]);
    expect(healthChecks(sim)).toBe(before + 1);
  });

  it('a variable of the environment wins over the env file', async () => {
    const sim = await simulator();
    const dir = tempDir();
    expect((await runIvsync(['init', '--dir', dir, '--base-url', sim.url], {})).code).toBe(0);
    const envPath = join(dir, 'ivsync.env');
    writeFileSync(envPath, readFileSync(envPath, 'utf8').replace(/^# IVS_API_TOKEN=$/m, 'IVS_API_TOKEN=test-token'));
    const config = ['--config', join(dir, 'ivsync.yaml')];
    expect((await runIvsync(['health', ...config], {})).code).toBe(0);
    const overridden = await runIvsync(['health', ...config], { IVS_API_TOKEN: 'wrong-token-456' });
    expect(overridden.code).toBe(1);
    expect(errorMessage(overridden.stderr)).toBe('the service rejected the token (401)');
  });
});
