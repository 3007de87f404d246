import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import { openSink } from '../../src/store/open-sink.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

/**
 * `args` run through the CLI's own parser, the first SIGINT arriving once the command's handler runs (its first
 * read of the clock, when it loads its configuration): stderr's JSON lines and the exit code.
 */
async function stoppedOnce(args: readonly string[]): Promise<{ code: number; lines: Array<Record<string, unknown>> }> {
  const stop = new AbortController();
  const stderr = new PassThrough();
  const chunks: Buffer[] = [];
  stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  const code = await runCli([...args, '--json'], {
    stdout: new PassThrough(),
    stderr,
    env: {},
    signal: stop.signal,
    signalName: () => (stop.signal.aborted ? 'SIGINT' : undefined),
    clock: () => {
      if (!stop.signal.aborted) stop.abort();
      return Date.now();
    },
  });
  stderr.end();
  const lines = Buffer.concat(chunks)
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, lines };
}

describe('the notice of the first signal says what the command does about it', () => {
  it('export: it stops, and what it was writing to is left as it was', async () => {
    const dir = join(tempDir(), 'out');
    mkdirSync(dir);
    const db = `sqlite:${join(tempDir(), 't.sqlite')}`;
    await (await openSink(db)).close();
    const { code, lines } = await stoppedOnce(['export', '--db', db, '--to', `parquet:${dir}`]);
    expect(code).toBe(3);
    expect(lines[0]).toMatchObject({
      level: 'warn',
      signal: 'SIGINT',
      msg: 'SIGINT: stopping the export; what it was writing to is left as it was (again to stop at once)',
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('backfill: it commits the pages in flight', async () => {
    const { lines } = await stoppedOnce([
      'backfill',
      '--db',
      `sqlite:${join(tempDir(), 'b.sqlite')}`,
      '--base-url',
      'http://127.0.0.1:9',
      '--token',
      't',
      '--from',
      '0',
      '--to',
      '86400',
    ]);
    expect(lines[0]).toMatchObject({ msg: 'SIGINT: finishing the pages in flight (again to stop at once)' });
  });

  it('a command that names nothing else stops', async () => {
    const { lines } = await stoppedOnce(['status', '--db', `sqlite:${join(tempDir(), 's.sqlite')}`]);
    expect(lines[0]).toMatchObject({ msg: 'SIGINT: stopping (again to stop at once)' });
  });
});
