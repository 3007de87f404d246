import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../migrations/index.js';
import { openSink } from '../../src/store/open-sink.js';
import { MAIN, spawnChild } from '../helpers/run-cli.js';
import { query } from '../helpers/sqlite-target.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { createTargetAt } from '../store/legacy-target.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';

/*
 * A short command pays for every module it loads before it does anything:
 * `status` and `--version` must not load what only other commands, another
 * target or a config file need (knex with lodash, zod, yaml, the other
 * targets' drivers), and a command that does need one must still load it.
 * The built CLI runs as a child process with a preload that records every
 * module it loads, imported or required. The CLI is a bundle (dist/cli): a
 * file of it counts as every package whose code esbuild put in it, as its
 * metafile says, since loading the file compiles that code whether it runs or
 * not.
 */

const RECORDER = fileURLToPath(new URL('../fixtures/module-recorder/record-modules.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The package a path under node_modules belongs to, by name. */
function packageOf(path: string): string | undefined {
  return /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];
}

/** For each file of the bundle (its path from the repository's root), the packages of node_modules it holds. */
function bundlePackages(): Map<string, Set<string>> {
  const meta = JSON.parse(readFileSync(join(ROOT, 'dist', 'cli-meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  const files = new Map<string, Set<string>>();
  for (const [output, { inputs }] of Object.entries(meta.outputs)) {
    const names = new Set<string>();
    for (const input of Object.keys(inputs)) {
      const name = packageOf(input);
      if (name !== undefined) names.add(name);
    }
    files.set(output, names);
  }
  return files;
}

/** The packages of node_modules a command loaded, by name. */
async function packagesLoaded(
  dir: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; stderr: string; packages: Set<string>; internals: Set<string> }> {
  const file = join(dir, 'modules.txt');
  writeFileSync(file, '');
  const child = spawnChild(
    process.execPath,
    ['--import', RECORDER, MAIN, ...args],
    {
      PATH: process.env.PATH,
      IVS_LOG_LEVEL: 'error',
      IVS_TEST_MODULES_FILE: file,
      ...env,
    },
    dir,
  );
  const { code, stderr } = await child.exited;
  const bundle = bundlePackages();
  const packages = new Set<string>();
  const internals = new Set<string>();
  for (const url of readFileSync(file, 'utf8').split('\n')) {
    if (url.startsWith('node-internal:')) internals.add(url.slice('node-internal:'.length));
    if (!url.startsWith('file:')) continue;
    const path = fileURLToPath(url);
    const name = packageOf(path);
    if (name !== undefined) packages.add(name);
    for (const held of bundle.get(relative(ROOT, path)) ?? []) packages.add(held);
  }
  return { code, stderr, packages, internals };
}

/** A SQLite target with every migration applied, as a sync leaves it. */
async function upToDateTarget(dir: string): Promise<string> {
  const db = `sqlite:${join(dir, 'ivsync.sqlite')}`;
  const sink = await openSink(db);
  await sink.close();
  return db;
}

describe('what a command loads', () => {
  const tempDir = useTempDir();
  const simulator = useSimulators({ sessions: 40, rate: 2000, burst: 2000, seed: 5 });

  it('status of an up-to-date SQLite target loads no knex, zod, yaml, node-cron nor the other drivers', async () => {
    const dir = tempDir();
    const db = await upToDateTarget(dir);
    const { code, stderr, packages } = await packagesLoaded(dir, ['status'], { IVS_DB: db });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    // What it reads the target with and prints with: the recording sees packages at all.
    expect(packages).toContain('better-sqlite3');
    expect(packages).toContain('yargs');
    // node-cron only where a daemon holds the target, to say when its next tick is.
    for (const name of ['knex', 'lodash', 'zod', 'yaml', 'node-cron', 'pg', '@duckdb/node-api', 'undici', 'pino'])
      expect(packages).not.toContain(name);
  });

  it('--version loads no target driver at all', async () => {
    const dir = tempDir();
    const { code, packages } = await packagesLoaded(dir, ['--version'], {});
    expect(code).toBe(0);
    expect(packages).toContain('yargs');
    for (const name of ['better-sqlite3', 'knex', 'zod', 'yaml', 'node-cron', 'cli-table3'])
      expect(packages).not.toContain(name);
  });

  it('a YAML config file loads yaml and zod to read and check it', async () => {
    const dir = tempDir();
    const db = await upToDateTarget(dir);
    const config = join(dir, 'ivsync.yaml');
    writeFileSync(config, `db: ${db}\ncrawl:\n  concurrency: 4\n`);
    const { code, packages } = await packagesLoaded(dir, ['status'], { IVS_CONFIG: config });
    expect(code).toBe(0);
    expect(packages).toContain('yaml');
    expect(packages).toContain('zod');
    expect(packages).not.toContain('knex');
  });

  it('a bad schedule is still refused, node-cron loaded to check it', async () => {
    const dir = tempDir();
    const db = await upToDateTarget(dir);
    const { code, stderr, packages } = await packagesLoaded(dir, ['status'], {
      IVS_DB: db,
      IVS_SCHEDULE: '61 * * * *',
    });
    expect(code).toBe(2);
    expect(stderr).toContain('IVS_SCHEDULE');
    expect(packages).toContain('node-cron');
  });

  it('a backfill whose stderr is no terminal draws no bar, and loads no cli-progress nor node-cron', async () => {
    const dir = tempDir();
    const db = await upToDateTarget(dir);
    const sim = await simulator();
    const { code, stderr, packages, internals } = await packagesLoaded(
      dir,
      ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)],
      {
        IVS_DB: db,
        IVS_BASE_URL: sim.url,
        IVS_API_TOKEN: 'test-token',
        IVS_RATE: '2000',
        IVS_CONFIG: writeConfig(dir),
      },
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const stored = query<{ n: number }>(db.slice('sqlite:'.length), 'SELECT COUNT(*) AS n FROM authentications');
    expect(stored[0]!.n).toBeGreaterThan(0);
    expect(packages).toContain('undici');
    expect(packages).not.toContain('cli-progress');
    // The refresh settings' gap of the default schedule (every five minutes) needs no node-cron.
    expect(packages).not.toContain('node-cron');
    // undici, the package: not Node's own copy of it behind fetch, which an ES import of `node:http` loads with its
    // namespace, nor the Web Crypto of `node:crypto`'s (scripts/bundle-cli.mjs takes built-ins as CommonJS).
    expect(internals).not.toContain('internal/deps/undici/undici');
    expect(internals).not.toContain('internal/crypto/webcrypto');
  });

  it('a new SQLite target is made without knex, and gets every migration', async () => {
    const dir = tempDir();
    const path = join(dir, 'new.sqlite');
    // The service is not there: the target is created and migrated before the first request fails.
    const { packages } = await packagesLoaded(dir, ['sync', '--since', '2026-01-01'], {
      IVS_DB: `sqlite:${path}`,
      IVS_API_TOKEN: 'test-token',
      IVS_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(packages).toContain('better-sqlite3');
    expect(packages).not.toContain('knex');
    const upToDate = await upToDateTarget(tempDir());
    const names = (file: string) => query<{ name: string }>(file, 'SELECT name FROM knex_migrations ORDER BY id');
    expect(names(path).map((r) => r.name)).toEqual(names(upToDate.slice('sqlite:'.length)).map((r) => r.name));
  });

  it('a target of an older release loads knex to apply the migrations it lacks, and gets them all', async () => {
    const dir = tempDir();
    const path = join(dir, 'old.sqlite');
    await createTargetAt(`sqlite:${path}`, MIGRATIONS.slice(0, 1), {});
    const { packages } = await packagesLoaded(dir, ['sync', '--since', '2026-01-01'], {
      IVS_DB: `sqlite:${path}`,
      IVS_API_TOKEN: 'test-token',
      IVS_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(packages).toContain('knex');
    expect(query<{ n: number }>(path, 'SELECT COUNT(*) AS n FROM knex_migrations')[0]!.n).toBe(MIGRATIONS.length);
  });
});
