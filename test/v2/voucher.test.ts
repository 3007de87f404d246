import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { errorMessage, runIvsync } from '../helpers/run-cli.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
let sim: RunningSimulator;
beforeEach(async () => {
  sim = await startSimulator({ sessions: 5 });
});
afterEach(async () => {
  await sim.close();
});

function env(apiVersion: '1.4' | '2'): Record<string, string> {
  const dir = tempDir();
  return {
    IVS_BASE_URL: sim.url,
    IVS_API_TOKEN: 'test-token',
    IVS_CONFIG: writeConfig(dir),
    IVS_API_VERSION: apiVersion,
    IVS_DB: `sqlite:${dir}/x.sqlite`,
  };
}

const create = [
  'voucher',
  'create',
  '--user-id',
  'u-1001',
  '--email',
  'ana@example.com',
  '--first-name',
  'Ana',
  '--last-name',
  'Lima',
];

describe('ivsync voucher create', () => {
  it('prints the username and the voucher on stdout, and the voucher nowhere else', async () => {
    const result = await runIvsync([...create, '--verbose'], env('2'));
    expect(result.code).toBe(0);
    const voucher = /^login voucher: (\S+)$/m.exec(result.stdout)?.[1];
    expect(voucher).toBeDefined();
    expect(voucher!.length).toBeGreaterThan(20);
    expect(result.stdout).toMatch(/^username: u-1001@\S+$/m);
    // Debug logging is on (--verbose): the logs name the user, never the voucher.
    expect(result.stderr).toMatch(/login voucher created/);
    expect(result.stderr).not.toContain(voucher);
  });

  it('prints JSON with --json', async () => {
    const result = await runIvsync([...create, '--json'], env('2'));
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as { username: string; login_voucher: string };
    expect(out.username).toMatch(/^u-1001@/);
    expect(out.login_voucher).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(result.stderr).not.toContain(out.login_voucher);
  });

  it('says in a sentence that the user has a voucher already (409)', async () => {
    expect((await runIvsync(create, env('2'))).code).toBe(0);
    const again = await runIvsync(create, env('2'));
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(errorMessage(again.stderr)).toMatch(
      /^the service will not issue another login voucher for user 'u-1001' \(409: .+\); the user has one already$/,
    );
  });

  it('says in a sentence what the service refused (400)', async () => {
    const result = await runIvsync(['voucher', 'create', '--user-id', 'u-1', '--email', 'not-an-address'], env('2'));
    expect(result.code).toBe(1);
    expect(errorMessage(result.stderr)).toMatch(
      /^the service refused a login voucher for user 'u-1' \(400: .*email.*\); check --user-id and --email$/,
    );
  });

  it('refuses a 1.4 account before sending anything', async () => {
    const result = await runIvsync(create, env('1.4'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/login vouchers exist only in API version 2.*--api-version 2/);
    expect(sim.stats.requests).toBe(0);
  });

  it('says the voucher is printed and never logged in its help', async () => {
    const result = await runIvsync(['voucher', 'create', '--help'], env('2'));
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/printed to stdout only, never logged or stored/);
  });

  it('needs --user-id and --email', async () => {
    const result = await runIvsync(['voucher', 'create', '--email', 'a@b.c'], env('2'));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/user-id/);
  });
});
