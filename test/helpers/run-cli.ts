import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/cli.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return () => Buffer.concat(chunks).toString('utf8');
}

/**
 * Runs the CLI in this process through its real parser (like a user would type it); `clock` is the injected time (ms).
 */
export async function runIvsync(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  signal?: AbortSignal,
  clock: () => number = Date.now,
): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  const code = await runCli(args, {
    stdout,
    stderr,
    env: { ...env },
    signal: signal ?? new AbortController().signal,
    clock,
  });
  stdout.end();
  stderr.end();
  return { code, stdout: out(), stderr: err() };
}

/** The CLI as the package's bin runs it: the bundle `npm run build` makes (scripts/bundle-cli.mjs). */
export const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface Child {
  /** Resolves with the exit code (or the signal name) when the process ends. */
  exited: Promise<CliResult & { signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
  pid: number | undefined;
  /** What the process wrote to stdout so far. */
  stdout(): string;
  /** What the process wrote to stderr so far. */
  stderr(): string;
}

/** Runs the built CLI as a child process: for crashes and signals. Needs `npm run build`. */
export function spawnIvsync(args: readonly string[], env: Record<string, string | undefined>, cwd?: string): Child {
  return spawnChild(process.execPath, [MAIN, ...args], { PATH: process.env.PATH, ...env }, cwd);
}

/** Runs `command` as a child process with exactly `env`, collecting its output. */
export function spawnChild(
  command: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
  cwd?: string,
): Child {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<CliResult & { signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr }));
    // A command that cannot start (ENOENT, EACCES) ends here without a 'close'.
    child.on('error', (error) => resolve({ code: -1, signal: null, stdout, stderr: `${stderr}${error.message}\n` }));
  });
  return { exited, kill: (s) => child.kill(s), pid: child.pid, stdout: () => stdout, stderr: () => stderr };
}

/** The error the CLI ended with, as scripts read it: off a terminal, the JSON line on stderr that holds `error`. */
export interface CliErrorRecord {
  code: string;
  message: string;
  source?: { kind: string; name: string };
  value?: unknown;
}

export function cliError(stderr: string): CliErrorRecord | undefined {
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    const record = JSON.parse(line) as { error?: CliErrorRecord };
    if (record.error !== undefined && typeof record.error === 'object') return record.error;
  }
  return undefined;
}

/** The message of the error the CLI ended with; '' when it ended without one. */
export function errorMessage(stderr: string): string {
  return cliError(stderr)?.message ?? '';
}
