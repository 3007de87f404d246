import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorMessage, runIvsync } from '../helpers/run-cli.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';

/*
 * Secrets in the wrong place and secrets too short, through the CLI's real
 * parser: a value that may be a secret is never echoed, and every way of
 * giving a webhook secret is held to one length rule, refused in one line.
 */

const tempDir = useTempDir();
/** Shaped like an API token, as a user would paste one. */
const TOKEN = 'ivs_live_8f3KQ2mZr7TxW1pB';
const SHORT = 'abcde';

describe('a secret pasted into the wrong member is not echoed', () => {
  it.each<[string, (dir: string) => Record<string, string>, RegExp]>([
    [
      'rate in the config file',
      (dir) => ({ IVS_CONFIG: writeConfig(dir, { rate: TOKEN }) }),
      /rate: expected a number, got a string of 25 characters$/,
    ],
    [
      'baseUrl in the config file',
      (dir) => ({ IVS_CONFIG: writeConfig(dir, { baseUrl: TOKEN }) }),
      /baseUrl: expected a URL \(https:\/\/\.\.\.\), got a string of 25 characters$/,
    ],
    [
      'IVS_RATE',
      (dir) => ({ IVS_CONFIG: writeConfig(dir), IVS_RATE: TOKEN }),
      /^IVS_RATE: must be a positive number of requests per second, got a string of 25 characters$/,
    ],
    [
      'IVS_API_VERSION',
      (dir) => ({ IVS_CONFIG: writeConfig(dir), IVS_API_VERSION: TOKEN }),
      /^IVS_API_VERSION: must be 1\.4 or 2, got a string of 25 characters$/,
    ],
    [
      'IVS_SINCE',
      (dir) => ({ IVS_CONFIG: writeConfig(dir), IVS_SINCE: TOKEN }),
      /^IVS_SINCE: the value \(a string of 25 characters\) is not a time/,
    ],
  ])('%s', async (_name, env, message) => {
    const dir = tempDir();
    for (const json of [[], ['--json']]) {
      const result = await runIvsync(['sync', ...json], { IVS_DB: `sqlite:${join(dir, 'x.sqlite')}`, ...env(dir) });
      expect(result.code).toBe(2);
      expect(result.stdout + result.stderr).not.toContain(TOKEN.slice(0, 8));
      // Off a terminal the error is a JSON record with or without --json: the message is checked both ways.
      expect(errorMessage(result.stderr)).toMatch(message);
    }
  });

  it('a short value is still quoted, so a typo can be seen', async () => {
    const dir = tempDir();
    const result = await runIvsync(['sync'], {
      IVS_CONFIG: writeConfig(dir),
      IVS_RATE: '10x',
      IVS_DB: `sqlite:${join(dir, 'x.sqlite')}`,
    });
    expect(errorMessage(result.stderr)).toBe('IVS_RATE: must be a positive number of requests per second, got "10x"');
  });
});

describe('one length rule for every webhook secret', () => {
  const RULE = 'a webhook secret must be at least 20 characters (it has 5); use a long random string';

  it.each<[string, (dir: string) => Record<string, string>, string]>([
    [
      'IVS_WEBHOOK_SECRET',
      (dir) => ({ IVS_CONFIG: writeConfig(dir), IVS_WEBHOOK_SECRET: SHORT }),
      `IVS_WEBHOOK_SECRET: ${RULE}`,
    ],
    [
      'webhooks.secret',
      (dir) => ({ IVS_CONFIG: writeConfig(dir, { webhooks: { secret: SHORT } }) }),
      `webhooks.secret: ${RULE}`,
    ],
    [
      'webhooks.secrets.<uuid>',
      (dir) => ({ IVS_CONFIG: writeConfig(dir, { webhooks: { secrets: { 'wh-1': SHORT } } }) }),
      `webhooks.secrets.wh-1: ${RULE}`,
    ],
    [
      'a variable webhooks.secret names',
      (dir) => ({ IVS_CONFIG: writeConfig(dir, { webhooks: { secret: { env: 'HOOK_KEY' } } }), HOOK_KEY: SHORT }),
      `HOOK_KEY: ${RULE}`,
    ],
  ])('%s: webhooks serve, webhooks create and the daemon refuse it alike', async (_name, env, message) => {
    const dir = tempDir();
    const base = {
      IVS_DB: `sqlite:${join(dir, 'x.sqlite')}`,
      IVS_BASE_URL: 'http://127.0.0.1:1',
      IVS_API_TOKEN: 'test-token',
      ...env(dir),
    };
    const commands = [
      ['webhooks', 'serve', '--port', '0'],
      ['webhooks', 'create', '--url', 'https://hooks.example.com/ivs', '--filter', 'activity.name=authentication'],
      ['daemon', '--port', '0', '--since', '2026-01-01'],
    ];
    for (const args of commands) {
      const result = await runIvsync(args, base);
      expect(result.code, args.join(' ')).toBe(2);
      expect(errorMessage(result.stderr).endsWith(message)).toBe(true);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('webhooks create --secret is held to the same rule, in the same words', async () => {
    const dir = tempDir();
    const result = await runIvsync(
      [
        'webhooks',
        'create',
        '--url',
        'https://hooks.example.com/ivs',
        '--filter',
        'activity.name=authentication',
        '--secret',
        SHORT,
      ],
      {
        IVS_DB: `sqlite:${join(dir, 'x.sqlite')}`,
        IVS_BASE_URL: 'http://127.0.0.1:1',
        IVS_API_TOKEN: 'test-token',
        IVS_CONFIG: writeConfig(dir),
      },
    );
    expect(result.code).toBe(2);
    expect(errorMessage(result.stderr)).toContain(RULE);
    expect(result.stderr).not.toContain(SHORT);
  });
});
