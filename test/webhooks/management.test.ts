import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { errorMessage, runIvsync } from '../helpers/run-cli.js';
import { query } from '../helpers/sqlite-target.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { startSim, TOKEN } from './harness.js';

const tempDir = useTempDir();
let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const SECRET = 'management-secret-of-30-chars!';
const URL_OK = 'http://127.0.0.1:9/webhooks';

async function setup() {
  sim = await startSim();
  const dir = tempDir();
  const db = join(dir, 'target.sqlite');
  const env = { IVS_BASE_URL: sim.url, IVS_API_TOKEN: TOKEN, IVS_DB: `sqlite:${db}`, IVS_CONFIG: writeConfig(dir) };
  const create = (...extra: string[]) =>
    runIvsync(
      ['webhooks', 'create', '--url', URL_OK, '--secret', SECRET, '--filter', 'activity.name=authentication', ...extra],
      env,
    );
  return { sim, db, env, create };
}

describe('webhooks create: validated before anything is sent', () => {
  it.each([
    [
      ['--url', 'http://hooks.example.com/ivs', '--secret', SECRET, '--filter', 'activity.name=authentication'],
      /--url must be an https:\/\/ address/,
    ],
    [['--secret', SECRET, '--filter', 'activity.name=authentication'], /--url is required/],
    [
      [
        '--url',
        'https://hooks.example.com/ivs',
        '--secret',
        'too-short-secret',
        '--filter',
        'activity.name=authentication',
      ],
      /at least 20 characters \(it has 16\)/,
    ],
    [
      ['--url', 'https://hooks.example.com/ivs', '--filter', 'activity.name=authentication'],
      /a secret is required: --secret or IVS_WEBHOOK_SECRET/,
    ],
    [['--url', 'https://hooks.example.com/ivs', '--secret', SECRET], /a --filter on activity.name is required/],
    [
      [
        '--url',
        'https://hooks.example.com/ivs',
        '--secret',
        SECRET,
        '--filter',
        'activity.name=authentication',
        '--filter',
        'status.flag=x',
      ],
      /'status.flag' is not a webhook filter key/,
    ],
    [
      [
        '--url',
        'https://hooks.example.com/ivs',
        '--secret',
        SECRET,
        '--filter',
        'activity.name=authentication',
        '--filter',
        'activity.form_factor=phone',
      ],
      /activity.form_factor takes lightbox, microscopic, free_camera; got 'phone'/,
    ],
  ])('%j', async (args, message) => {
    const { env } = await setup();
    const result = await runIvsync(['webhooks', 'create', ...args], env);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain('too-short-secret');
    expect(sim!.stats.requests).toBe(0);
  });
});

describe('webhooks against the service', () => {
  it(
    'takes the secret from webhooks.secret in the config file when neither --secret nor IVS_WEBHOOK_SECRET gives ' +
      'one',
    async () => {
      const { env } = await setup();
      const dir = tempDir();
      const result = await runIvsync(
        ['webhooks', 'create', '--url', URL_OK, '--filter', 'activity.name=authentication'],
        { ...env, IVS_CONFIG: writeConfig(dir, { webhooks: { secret: SECRET } }) },
      );
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).not.toContain(SECRET);
    },
  );

  it('create, list, show, deactivate: tables on stdout, the mirror in the target, the secret nowhere', async () => {
    const { db, env, create } = await setup();
    const created = await create('--channel', 'shop-1', '--filter', 'activity.form_factor=lightbox,microscopic');
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const uuid = /^([0-9a-f-]{36})\s/m.exec(created.stdout)?.[1];
    expect(uuid).toBeDefined();
    expect(created.stdout).toMatch(/^webhook\s+channel\s+endpoint\s+filters\s+created\s+active$/m);
    expect(created.stdout).toContain('activity.name=authentication; activity.form_factor=lightbox,microscopic');
    expect(query(db, 'SELECT webhook_uuid, channel, endpoint_url, active FROM webhooks')).toEqual([
      { webhook_uuid: uuid, channel: 'shop-1', endpoint_url: URL_OK, active: 1 },
    ]);

    const second = await runIvsync(
      ['webhooks', 'create', '--url', URL_OK, '--filter', 'activity.name=fingerprint', '--json'],
      { ...env, IVS_WEBHOOK_SECRET: SECRET },
    );
    expect(second.code).toBe(0);
    const secondUuid = (JSON.parse(second.stdout) as Array<{ webhook_uuid: string }>)[0]!.webhook_uuid;

    const list = await runIvsync(['webhooks', 'list', '--json'], env);
    expect((JSON.parse(list.stdout) as Array<{ webhook_uuid: string }>).map((w) => w.webhook_uuid).sort()).toEqual(
      [uuid, secondUuid].sort(),
    );

    const show = await runIvsync(['webhooks', 'show', uuid!], env);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(uuid);

    const off = await runIvsync(['webhooks', 'deactivate', uuid!], env);
    expect(off.code).toBe(0);
    expect(off.stdout).toBe(`webhook ${uuid} deactivated\n`);
    expect(query(db, 'SELECT webhook_uuid, active FROM webhooks ORDER BY active')).toEqual([
      { webhook_uuid: uuid, active: 0 },
      { webhook_uuid: secondUuid, active: 1 },
    ]);
    // Listed again: the deactivated one is not listed by the service and stays mirrored as inactive.
    const relist = await runIvsync(['webhooks', 'list'], env);
    expect(relist.stdout).not.toContain(uuid);
    expect(query(db, 'SELECT count(*) AS n FROM webhooks WHERE active = 0')).toEqual([{ n: 1 }]);

    const again = await runIvsync(['webhooks', 'deactivate', uuid!], env);
    expect(again.code).toBe(1);
    expect(errorMessage(again.stderr)).toBe(
      `webhook ${uuid} is not active, does not exist, or is not yours (ivsync webhooks list)`,
    );

    const unknown = await runIvsync(['webhooks', 'show', '00000000-0000-4000-8000-000000000000'], env);
    expect(errorMessage(unknown.stderr)).toBe(
      'webhook 00000000-0000-4000-8000-000000000000 does not exist or is not yours (ivsync webhooks list)',
    );

    const everything =
      JSON.stringify(query(db, 'SELECT * FROM webhooks')) + created.stdout + second.stdout + list.stdout + show.stdout;
    expect(everything).not.toContain(SECRET);
  });

  it('turns 409 and 403 into sentences a user can act on', async () => {
    const { create } = await setup();
    for (let i = 0; i < 10; i++) expect((await create()).code).toBe(0);
    const eleventh = await create();
    expect(eleventh.code).toBe(1);
    expect(errorMessage(eleventh.stderr)).toBe(
      '10 webhooks are already active: deactivate one first (ivsync webhooks list)',
    );

    await sim!.close();
    const { create: createAgain, env } = await setup();
    const domain = await runIvsync(
      [
        'webhooks',
        'create',
        '--url',
        'https://not-registered.example.org/ivs',
        '--secret',
        SECRET,
        '--filter',
        'activity.name=authentication',
      ],
      env,
    );
    expect(errorMessage(domain.stderr)).toBe(
      "the endpoint's domain is not registered to your organization (ivsync domains list)",
    );
    const user = await createAgain('--filter', 'owner.user.username=mallory');
    expect(errorMessage(user.stderr)).toBe('a username in --filter owner.user.username is not in your organization');
  });

  it('domains list prints the registered domains and mirrors them', async () => {
    const { db, env } = await setup();
    const result = await runIvsync(['domains', 'list'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^domain\s+name\s+owner\s+registered$/m);
    for (const name of ['hooks.example.com', '127.0.0.1', 'localhost']) expect(result.stdout).toContain(name);
    expect(query(db, 'SELECT domain_name FROM domains ORDER BY domain_name')).toEqual([
      { domain_name: '127.0.0.1' },
      { domain_name: 'hooks.example.com' },
      { domain_name: 'localhost' },
    ]);
    const json = await runIvsync(['domains', 'list', '--json'], env);
    expect(JSON.parse(json.stdout)).toHaveLength(3);
  });
});
