import { PassThrough } from 'node:stream';
import { runCli } from '../src/cli/cli.js';

/**
 * Runs the CLI in this process on an injected clock (ms) and returns its stdout; a non-zero exit throws with its
 * stderr.
 */
export async function cliInProcess(
  args: readonly string[],
  env: Record<string, string>,
  clock: () => number,
): Promise<string> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await runCli(args, { stdout, stderr, env, signal: new AbortController().signal, clock });
  if (code !== 0) throw new Error(`ivsync ${args.join(' ')} exited ${code}: ${err}`);
  return out;
}
