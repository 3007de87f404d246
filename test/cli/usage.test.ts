import { describe, expect, it } from 'vitest';
import { errorMessage, runIvsync } from '../helpers/run-cli.js';

describe('the command line', () => {
  it('lists every command in --help', async () => {
    const r = await runIvsync(['--help']);
    expect(r.code).toBe(0);
    for (const c of [
      'init',
      'backfill',
      'sync',
      'status',
      'health',
      'migrate',
      'simulate',
      'daemon',
      'export',
      'webhooks',
      'domains',
    ]) {
      expect(r.stdout).toContain(`ivsync ${c}`);
    }
  });

  it.each([
    [['backfill', '--to', '2024-01-01'], /--from|from/],
    [['nonsense'], /Unknown|nonsense/],
    [[], /name a command/],
    [['sync', '--unknown-flag'], /unknown option --unknown-flag/],
  ])('%j is a usage error (exit 2) and runs nothing', async (args, message) => {
    const r = await runIvsync(args, { IVS_DB: 'sqlite:/nonexistent-dir/never/created.sqlite' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('says which time it could not read, as a usage error (exit 2)', async () => {
    const r = await runIvsync(['backfill', '--from', 'yesterday', '--to', '2024-01-01'], {
      IVS_BASE_URL: 'http://127.0.0.1:9',
      IVS_API_TOKEN: 'x',
    });
    expect(r.code).toBe(2);
    expect(errorMessage(r.stderr)).toBe(
      '--from: "yesterday" is not a time: give an ISO 8601 date or date-time (2024-01-31, ' +
        '2024-01-31T12:00:00Z) or epoch seconds',
    );
  });

  it('refuses plain http to a non-loopback host before any request', async () => {
    const r = await runIvsync(['health'], { IVS_BASE_URL: 'http://api.example.com', IVS_API_TOKEN: 'x' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/https/i);
  });
});
