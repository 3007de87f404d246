import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { spawnChild, type CliResult } from '../helpers/run-cli.js';
import { expectTargetEqualsTruth, HISTORY_END, HISTORY_START, truthRows } from '../helpers/truth.js';
import { until } from '../helpers/wait.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/**
 * What a fresh clone does not have: the package is packed from a copy without them, so only `prepack` can build dist/.
 */
const NOT_IN_A_CLONE = new Set(['node_modules', 'dist', 'data', 'coverage', '.git']);
/** npm settings of the `npm test` this runs under that would point the child npm back at the repository. */
const NPM_RUN_ONLY = /^npm_(?!config_)|^npm_config_(local_prefix|global_prefix|prefix)$/i;

/**
 * A shell outside the repository: this Node first on PATH, no NODE_PATH, none of the outer `npm run`'s own variables.
 */
function outsideEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!NPM_RUN_ONLY.test(key) && key !== 'NODE_PATH' && key !== 'NODE_OPTIONS' && key !== 'INIT_CWD')
      env[key] = value;
  }
  env.PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`;
  return { ...env, ...extra };
}

/** Runs a command to its end; fails the test with its output when it exits non-zero. */
async function run(command: string, args: readonly string[], cwd: string, env = outsideEnv()): Promise<CliResult> {
  const end = await spawnChild(command, args, env, cwd).exited;
  if (end.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${end.code}:\n${end.stderr}\n${end.stdout}`);
  return end;
}

function packageJson(dir: string): { version: string; scripts?: Record<string, string> } {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    version: string;
    scripts?: Record<string, string>;
  };
}

/** Packages (scoped ones included) under `nodeModules` with a preinstall, install or postinstall script. */
function installedWithInstallScripts(nodeModules: string): string[] {
  const names = readdirSync(nodeModules).flatMap((entry) =>
    entry.startsWith('@') ? readdirSync(join(nodeModules, entry)).map((sub) => `${entry}/${sub}`) : [entry],
  );
  return names.filter((name) => {
    if (!existsSync(join(nodeModules, name, 'package.json'))) return false;
    const scripts = packageJson(join(nodeModules, name)).scripts ?? {};
    return ['preinstall', 'install', 'postinstall'].some((hook) => scripts[hook] !== undefined);
  });
}

const dirs: string[] = [];
function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ivsync-${name}-`));
  dirs.push(dir);
  return dir;
}

let packedFiles: string[] = [];
let prefix = '';
let bin = '';

beforeAll(async () => {
  // Pack from a copy of the working tree: packing in place would rebuild the
  // dist/ that other test files are running from, and a copy without dist/ is
  // what a fresh clone packs.
  const clone = tempDir('clone');
  cpSync(ROOT, clone, {
    recursive: true,
    filter: (source) => !NOT_IN_A_CLONE.has(relative(ROOT, source).split(sep)[0] ?? ''),
  });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(clone, 'node_modules'), 'dir');
  // A local config (it may hold a webhook secret) sits beside the example and must not be packed.
  writeFileSync(
    join(clone, 'config', 'ivsync.json'),
    JSON.stringify({ webhooks: { secret: 'local-secret-not-for-the-package' } }),
  );

  const packDir = tempDir('pack');
  const packed = await run('npm', ['pack', '--json', '--pack-destination', packDir], clone);
  const [report] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  packedFiles = report!.files.map((f) => f.path).sort();

  // Production dependencies only, installed as a user's project installs the
  // package (devDependencies of a dependency are never installed), from the
  // npm cache that the repository's `npm ci` filled. No dependency has an
  // install script: better-sqlite3's addons (Node-API, one per platform) are
  // files of its tarball, so nothing is compiled or downloaded from elsewhere.
  prefix = tempDir('prefix');
  await run(
    'npm',
    [
      'install',
      '--prefix',
      prefix,
      '--omit=dev',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(packDir, report!.filename),
    ],
    prefix,
  );
  expect(installedWithInstallScripts(join(prefix, 'node_modules'))).toEqual([]);
  // Nor did npm fall back to its implicit `node-gyp rebuild` (a binding.gyp is in the package): it would leave build/.
  expect(existsSync(join(prefix, 'node_modules', 'better-sqlite3', 'build'))).toBe(false);
  bin = join(prefix, 'node_modules', '.bin', 'ivsync');
  // A hang guard only: packing builds dist/ and installing unpacks some 160 packages.
}, 300_000);

afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the package (npm pack, installed with production dependencies only)', () => {
  it(
    'ships its launcher, the built program, its migrations, types, the example config, README and LICENSE, and ' +
      'nothing else',
    () => {
      for (const path of [
        'package.json',
        'README.md',
        'LICENSE',
        'config/ivsync.example.json',
        'bin/ivsync.js',
        'dist/cli/main.js',
        'dist/cli/lazy-zod.js',
        'dist/src/index.js',
        'dist/src/index.d.ts',
        'dist/migrations/index.js',
      ]) {
        expect(packedFiles).toContain(path);
      }
      const unexpected = packedFiles.filter(
        (path) =>
          !/^dist\/(src|migrations)\/.+\.(js|d\.ts)$/.test(path) &&
          !/^dist\/cli\/[\w-]+\.js$/.test(path) &&
          !['package.json', 'README.md', 'LICENSE', 'config/ivsync.example.json', 'bin/ivsync.js'].includes(path),
      );
      expect(unexpected).toEqual([]);
      // No source maps (they would point at .ts sources that are not shipped), no tests, no benchmarks, no local
      // config.
      expect(packedFiles.filter((path) => /\.map$|^(dist\/)?(test|bench)\/|^config\/ivsync\.json$/.test(path))).toEqual(
        [],
      );
      // No development dependency came along.
      for (const dev of ['typescript', 'vitest', '@types/node'])
        expect(existsSync(join(prefix, 'node_modules', dev)), dev).toBe(false);
    },
  );

  it(
    'runs from its installed bin outside the repository (--version, simulate, a backfill into SQLite), and a ' +
      'script reads the file through the library',
    async () => {
      const work = tempDir('work');
      expect((await run(bin, ['--version'], work)).stdout.trim()).toBe(manifest.version);

      const simulator = spawnChild(
        bin,
        ['simulate', '--port', '0', '--sessions', '300', '--seed', '7', '--rate', '1000', '--json'],
        outsideEnv(),
        work,
      );
      try {
        let exited = false;
        void simulator.exited.then(() => (exited = true));
        const url = await until(
          () => {
            const found = /"url":"(http:\/\/[^"]+)"/.exec(simulator.stdout())?.[1];
            if (found === undefined && exited)
              throw new Error(`the simulator exited before listening: ${simulator.stderr()}`);
            return found;
          },
          30_000,
          'the simulator listening',
        );
        // The default target, ./data/ivsync.sqlite, lands in the working directory.
        await run(
          bin,
          ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END), '--rate', '1000'],
          work,
          outsideEnv({ IVS_BASE_URL: url, IVS_API_TOKEN: 'test-token' }),
        );
        simulator.kill('SIGTERM');
        expect((await simulator.exited).code).toBe(0);
      } finally {
        simulator.kill('SIGKILL');
      }

      // The child simulator's world, built again here from the same seed.
      const twin = await startSimulator({ sessions: 300, seed: 7 });
      await twin.close();
      const db = join(work, 'data', 'ivsync.sqlite');
      expectTargetEqualsTruth(db, twin);

      writeFileSync(
        join(prefix, 'read-target.mjs'),
        [
          "import { openTarget, startSimulator, createClient, loadConfig } from 'ivsync';",
          'const sink = await openTarget(`sqlite:${process.argv[2]}`);',
          'const counts = {};',
          "for (const table of ['authentications', 'fingerprints']) {",
          '  const [row] = await sink.query(`SELECT count(*) AS n FROM ${table} WHERE missing_since IS NULL`);',
          '  counts[table] = Number(row.n);',
          '}',
          'await sink.close();',
          'console.log(JSON.stringify({ api: [startSimulator, createClient, loadConfig].map((f) => typeof f), ' +
            'counts }));',
        ].join('\n'),
      );
      const read = JSON.parse((await run(process.execPath, ['read-target.mjs', db], prefix)).stdout) as {
        api: string[];
        counts: Record<string, number>;
      };
      expect(read.api).toEqual(['function', 'function', 'function']);
      expect(read.counts).toEqual({
        authentications: truthRows(twin, 'authentications').length,
        fingerprints: truthRows(twin, 'fingerprints').length,
      });

      // The run model as a library: a sync of an in-process simulator into a new file, through openRun and runSync.
      writeFileSync(
        join(prefix, 'embed-sync.mjs'),
        [
          "import { loadConfig, openRun, runSync, startSimulator } from 'ivsync';",
          'const sim = await startSimulator({ sessions: 40, seed: 3, rate: 10000, burst: 10000 });',
          "const config = loadConfig({ flags: { baseUrl: sim.url, token: 'test-token', db: " +
            "'sqlite:embedded.sqlite', since: '2000-01-02', rate: 10000 }, env: {}, clock: Date.now, fileExists: " +
            '() => false });',
          'const deps = await openRun(config);',
          'try {',
          "  const report = await runSync(deps, { accounts: ['default'], resources: ['authentications', " +
            "'fingerprints'], wait: false });",
          '  console.log(JSON.stringify({ status: report.status, written: report.itemsWritten, stored: (await ' +
            'deps.sink.status()).tables.authentications }));',
          '} finally {',
          '  await deps.close();',
          '  await sim.close();',
          '}',
        ].join('\n'),
      );
      const embedded = JSON.parse((await run(process.execPath, ['embed-sync.mjs'], prefix)).stdout) as {
        status: string;
        written: number;
        stored: number;
      };
      expect(embedded.status).toBe('succeeded');
      expect(embedded.written).toBeGreaterThan(0);
      expect(embedded.stored).toBeGreaterThan(0);
    },
  );

  it(
    "is typed: a consumer's TypeScript finds the " + 'declarations through the "types" condition of "exports"',
    async () => {
      writeFileSync(
        join(prefix, 'consumer.mts'),
        [
          "import { openTarget, type QueryableSink, type SimulatorOptions } from 'ivsync';",
          'const options: SimulatorOptions = { sessions: 10 };',
          "const sink: QueryableSink = await openTarget('sqlite:x.sqlite');",
          "const rows: Record<string, unknown>[] = await sink.query('SELECT 1');",
          'export { options, rows };',
        ].join('\n'),
      );
      writeFileSync(
        join(prefix, 'tsconfig.json'),
        JSON.stringify({
          // No @types/node: the consumer uses none, and skipLibCheck leaves the declarations' own imports unchecked.
          compilerOptions: {
            module: 'nodenext',
            target: 'es2022',
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: [],
          },
          files: ['consumer.mts'],
        }),
      );
      await run(
        process.execPath,
        [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'],
        prefix,
      );
    },
  );
});
