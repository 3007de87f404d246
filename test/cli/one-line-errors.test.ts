import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { reportError, renderError } from '../../src/cli/error-output.js';
import { oneLine } from '../../src/cli/one-line.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { openSink } from '../../src/store/open-sink.js';
import { freshTarget, type FreshTarget } from '../targets/each-target.js';
import { POSTGRES_URL, postgresUp } from '../helpers/postgres.js';
import { errorMessage, runIvsync } from '../helpers/run-cli.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';

describe('oneLine', () => {
  const cases: Array<[string, string, string]> = [
    [
      'a short line stays',
      'cannot open target sqlite:x: disk I/O error',
      'cannot open target sqlite:x: disk I/O error',
    ],
    ['a stack is cut at the first line', 'boom\n    at f (file.js:1:1)\n    at g (file.js:2:2)', 'boom'],
    ['a carriage return ends the line too', 'first\rsecond', 'first'],
    ['control characters are blanked', 'a\u0000b\tc', 'a b c'],
    ['a lone surrogate becomes U+FFFD', 'a\ud800b', 'a\ufffdb'],
    [
      'a statement is capped',
      `insert into t ${'(?, ?), '.repeat(1000)}`,
      `insert into t ${'(?, ?), '.repeat(1000)}`.slice(0, 299) + '…',
    ],
  ];
  it.each(cases)('%s', (_name, message, line) => {
    expect(oneLine(message)).toBe(line);
  });

  it('is what the CLI prints for any error, with or without --json', () => {
    const error = new Error(`${'SELECT * FROM t WHERE x = 1 '.repeat(100)}\nat somewhere`);
    for (const record of [undefined, { time: '2026-01-01T00:00:00.000Z', run: 'abcd1234' }]) {
      const printed = renderError(reportError(error, false), record);
      expect(printed.trimEnd().split('\n')).toHaveLength(1);
      const message = record ? (JSON.parse(printed) as { msg: string }).msg : printed;
      expect(message.length).toBeLessThan(400);
    }
  });
});

/*
 * A target whose table lost a column (a hand-made change, a half-applied
 * migration): every page's INSERT fails. That is the target failing, not an
 * item: the run stops with one short line, and no item is kept aside.
 */
describe('a target that refuses every page', () => {
  const tempDir = useTempDir();
  let sim: RunningSimulator | undefined;
  let target: FreshTarget | undefined;
  afterEach(async () => {
    await sim?.close();
    await target?.dispose();
    sim = undefined;
    target = undefined;
  });

  async function breakTable(url: string): Promise<void> {
    // Opened once, so the tables exist.
    await (await openSink(url)).close();
    if (!url.startsWith('postgres')) {
      const Database = (await import('better-sqlite3')).default;
      const db = new Database(url.slice('sqlite:'.length));
      // The old rename leaves the views alone (they break; the crawl does not read them).
      db.pragma('legacy_alter_table = ON');
      db.exec('ALTER TABLE authentications RENAME COLUMN customer_item_id TO customer_item');
      db.close();
      return;
    }
    const schema = new URL(url).searchParams.get('schema')!;
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`ALTER TABLE "${schema}".authentications RENAME COLUMN customer_item_id TO customer_item`);
    await client.end();
  }

  it.each([['sqlite'], ...(postgresUp ? [['postgres']] : [])] as Array<['sqlite' | 'postgres']>)(
    '%s: the run fails with one line naming the problem, no statement, and keeps no item aside',
    async (dialect) => {
      sim = await startSimulator({ sessions: 40, seed: 8, rate: 2000, burst: 2000 });
      target = await freshTarget(dialect);
      await breakTable(target.url);
      const config = writeConfig(tempDir());
      const result = await runIvsync(
        ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END), '--resources', 'authentications'],
        {
          IVS_BASE_URL: sim.url,
          IVS_API_TOKEN: 'test-token',
          IVS_DB: target.url,
          IVS_CONFIG: config,
          IVS_RATE: '2000',
          IVS_LOG_LEVEL: 'silent',
        },
      );
      expect(result.code).toBe(1);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      const message = errorMessage(result.stderr);
      expect(message).toMatch(new RegExp(`^${dialect} failed \\(\\w+\\): .*customer_item_id`));
      expect(message.length).toBeLessThan(320);
      expect(message).not.toMatch(/insert|json_to_recordset|VALUES/i);
      const sink = await openSink(target.url);
      try {
        expect(await sink.query('SELECT count(*) AS n FROM rejected_items')).toEqual([{ n: 0 }]);
        const [run] = await sink.query('SELECT status, error FROM sync_runs');
        expect(run).toMatchObject({ status: 'failed' });
        expect(String(run!.error)).not.toMatch(/\n|insert/i);
      } finally {
        await sink.close();
      }
    },
  );
});
