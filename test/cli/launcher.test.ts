import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { spawnChild } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

/*
 * The package's bin (bin/ivsync.js) is a Node script: `node bin/ivsync.js`
 * works, it runs the CLI in the process that was started (so signals and the
 * exit code are Node's), and it finds the package through the links npm
 * makes. It sets no environment of its own: the glibc arena cap is read at
 * process start, so the Dockerfile and the systemd unit set it, and a value
 * in the environment reaches the process as it is. What Node saw is written
 * by a module preloaded through NODE_OPTIONS.
 */

const BIN = fileURLToPath(new URL('../../bin/ivsync.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const tempDir = useTempDir();
const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Seen {
  pid: number;
  arenaMax: string | null;
  execArgv: string[];
}

interface Launched {
  code: number | string;
  stdout: string;
  pid: number | undefined;
  seen: Seen;
}

async function launch(command: string, args: readonly string[], extra: Record<string, string> = {}): Promise<Launched> {
  const dir = tempDir();
  const report = join(dir, 'seen.json');
  const probe = join(dir, 'probe.mjs');
  const seen =
    'JSON.stringify({ pid: process.pid, arenaMax: process.env.MALLOC_ARENA_MAX ?? null, ' +
    'execArgv: process.execArgv })';
  writeFileSync(
    probe,
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(report)}, ${seen});\n`,
  );
  const env = {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    NODE_OPTIONS: `--import="${probe}"`,
    ...extra,
  };
  const child = spawnChild(command, args, env, dir);
  const exited = await child.exited;
  const read = JSON.parse(readFileSync(report, 'utf8')) as Seen;
  return { code: exited.signal ?? exited.code, stdout: exited.stdout, pid: child.pid, seen: read };
}

it('runs as `node bin/ivsync.js`, in the process that was started', async () => {
  const run = await launch(process.execPath, [BIN, '--version']);
  expect(run.code).toBe(0);
  expect(run.stdout.trim()).toBe(version);
  expect(run.seen.pid).toBe(run.pid);
});

it('runs through a chain of links as npm makes them, by its shebang', async () => {
  const links = tempDir();
  // node_modules/.bin/ivsync -> ../ivsync/bin/ivsync.js is relative; a global prefix links absolutely.
  symlinkSync(BIN, join(links, 'absolute'));
  symlinkSync('absolute', join(links, 'ivsync'));
  const run = await launch(join(links, 'ivsync'), ['--version']);
  expect(run.code).toBe(0);
  expect(run.stdout.trim()).toBe(version);
  expect(run.seen.pid).toBe(run.pid);
  // Nothing set by the bin: the cap is the deployment's (Dockerfile, systemd unit).
  expect(run.seen.arenaMax).toBeNull();
  // V8 reads the young generation's size only at start: the shebang line passes it.
  expect(run.seen.execArgv).toEqual(['--max-semi-space-size=8']);
});

it("passes the environment's MALLOC_ARENA_MAX, the arguments and the exit code through", async () => {
  const run = await launch(BIN, ['no-such-command'], { MALLOC_ARENA_MAX: '2' });
  expect(run.seen.arenaMax).toBe('2');
  // An unknown command is a usage error: exit 2, passed through.
  expect(run.code).toBe(2);
});

/** A Node older than the CLI's 22.14 on this machine (Debian's is 20), or undefined. */
function olderNode(): { path: string; version: string } | undefined {
  for (const path of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(path)) continue;
    const version = execFileSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
    const [major = 0, minor = 0] = version.split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 14)) return { path, version };
  }
  return undefined;
}

const older = olderNode();

it.skipIf(older === undefined)('on a Node older than 22.14, refuses in one line and touches nothing', async () => {
  const node = older!;
  const dir = tempDir();
  const target = join(dir, 'data', 'x.sqlite');
  const child = spawnChild(node.path, [BIN, 'backfill', '--days', '1'], {
    PATH: process.env.PATH,
    IVS_DB: `sqlite:${target}`,
    IVS_BASE_URL: 'http://127.0.0.1:9',
    IVS_API_TOKEN: 'test-token',
  });
  const exited = await child.exited;
  expect(exited.code).toBe(1);
  expect(exited.stdout).toBe('');
  // One line, naming the Node it found, not a stack trace from the CLI's first line.
  expect(exited.stderr.trimEnd().split('\n')).toEqual([
    `ivsync needs Node.js 22.14 or later; this is Node.js ${node.version} (${node.path}): put a newer node first ` +
      'on PATH (README, "Node.js")',
  ]);
  expect(existsSync(join(dir, 'data'))).toBe(false);
});

it('the Dockerfile and the systemd unit set the glibc arena cap, which only the process environment can', () => {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  expect(runtimeStage).toMatch(/^\s*MALLOC_ARENA_MAX=2\b/m);
  const unit = readFileSync(join(ROOT, 'deploy/systemd/ivsync.service'), 'utf8');
  expect(unit).toMatch(/^Environment=MALLOC_ARENA_MAX=2$/m);
});
