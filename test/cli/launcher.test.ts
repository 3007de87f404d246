import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { spawnChild } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';

/*
 * The package's bin is a shell launcher (bin/ivsync): it must run the CLI in
 * its own process (exec, so signals and the exit code are Node's), find the
 * package through the links npm makes, and set MALLOC_ARENA_MAX unless the
 * user did. What Node saw is written by a module preloaded through
 * NODE_OPTIONS, which the launcher passes on like any variable.
 */

const LAUNCHER = fileURLToPath(new URL('../../bin/ivsync', import.meta.url));
const tempDir = useTempDir();

interface Seen {
  pid: number;
  arenaMax: string | null;
}

async function launch(bin: string, args: readonly string[], extra: Record<string, string> = {}): Promise<{ code: number | string; stdout: string; pid: number | undefined; seen: Seen }> {
  const dir = tempDir();
  const report = join(dir, 'seen.json');
  const probe = join(dir, 'probe.mjs');
  writeFileSync(
    probe,
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(report)}, JSON.stringify({ pid: process.pid, arenaMax: process.env.MALLOC_ARENA_MAX ?? null }));\n`,
  );
  const child = spawnChild(bin, args, { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, NODE_OPTIONS: `--import="${probe}"`, ...extra }, dir);
  const exited = await child.exited;
  return { code: exited.signal ?? exited.code, stdout: exited.stdout, pid: child.pid, seen: JSON.parse(readFileSync(report, 'utf8')) as Seen };
}

it('runs the CLI in its own process with MALLOC_ARENA_MAX=2, through a chain of links as npm makes them', async () => {
  const links = tempDir();
  // node_modules/.bin/ivsync -> ../ivsync/bin/ivsync is relative; a global prefix links absolutely.
  symlinkSync(LAUNCHER, join(links, 'absolute'));
  symlinkSync('absolute', join(links, 'ivsync'));
  const version = (JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version: string }).version;

  const run = await launch(join(links, 'ivsync'), ['--version']);
  expect(run.code).toBe(0);
  expect(run.stdout.trim()).toBe(version);
  expect(run.seen.arenaMax).toBe('2');
  // exec: the process that ran the CLI is the one that was started, not a child of a shell.
  expect(run.seen.pid).toBe(run.pid);
});

it("keeps the user's own MALLOC_ARENA_MAX and passes the arguments and exit code through", async () => {
  const run = await launch(LAUNCHER, ['no-such-command'], { MALLOC_ARENA_MAX: '4' });
  expect(run.seen.arenaMax).toBe('4');
  // An unknown command is a usage error: exit 2, passed through.
  expect(run.code).toBe(2);
});
