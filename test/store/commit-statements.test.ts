import { expect, it } from 'vitest';
import type { SqlDriver, SqlExecutor } from '../../src/store/drivers/sql-driver.js';
import { SqlPageStore } from '../../src/store/pages/page-store.js';
import type { WindowKey } from '../../src/store/sink.js';
import { SqlWindowStore } from '../../src/store/windows/window-store.js';
import { eachTarget } from '../targets/each-target.js';
import { auth, authWindow, batch, fp, t } from './fixtures.js';
import { rawDriver } from './raw-driver.js';

/** The real driver, with the SQL of every read its write transactions make kept in `reads`. */
function countingReads(driver: SqlDriver, reads: string[]): SqlDriver {
  return {
    dialect: driver.dialect,
    transaction: (work) =>
      driver.transaction((tx) => {
        const counted: SqlExecutor = {
          ...tx,
          all: (sql, params) => {
            reads.push(sql);
            return tx.all(sql, params);
          },
        };
        return work(counted);
      }),
    read: (work) => driver.read(work),
    migrate: (migrations) => driver.migrate(migrations),
    isMigrated: () => driver.isMigrated(),
    close: () => driver.close(),
  };
}

const fpWindow: WindowKey = { ...authWindow, resource: 'fingerprints' };

/**
 * A Postgres commit waits for each statement's answer while its process is
 * busy with the pages that keep coming, some milliseconds a round trip: the
 * reads of a commit group that holds both resources are one statement each,
 * not one per resource (stored sessions, their current versions, the
 * completed passes' unseen sessions), and no child table is read to find
 * rows a new session's id may have.
 */
eachTarget((dialect, target) => {
  it('a commit of both resources reads each thing in one statement, and merges as before', async () => {
    const driver = await rawDriver(target().url);
    const reads: string[] = [];
    try {
      const windows = new SqlWindowStore(driver, () => t(0));
      await windows.planWindows([
        { ...authWindow, windowEnd: 2_000 },
        { ...fpWindow, windowEnd: 2_000 },
      ]);
      const pages = new SqlPageStore(driver);
      // Stored before: one of each resource, seen by the commit below, and one of each it does not see.
      await pages.commitPages([
        { key: authWindow, batch: batch([auth('a-old'), auth('a-gone')]), nextCursor: 'c', done: false, now: t(1) },
        {
          key: fpWindow,
          batch: batch([fp('f-old', { parent_service_id: 'p-1' }), fp('f-gone')]),
          nextCursor: 'c',
          done: false,
          now: t(1),
        },
      ]);
      for (const key of [authWindow, fpWindow])
        await windows.startPass(key, { passFrom: 0, passTo: 2_000, startedAt: t(2) });
      const counted = new SqlPageStore(countingReads(driver, reads));
      const seen = { last_synced_at: t(3) };
      const results = await counted.commitPages([
        {
          key: authWindow,
          batch: batch([
            auth('a-old', { ...seen, result_id: 'counterfeit' }),
            auth('a-new', seen, { textFields: [{ service_id: 'a-new', key: 'identifier', value: 'I' }] }),
          ]),
          nextCursor: null,
          done: true,
          now: t(3),
        },
        {
          key: fpWindow,
          // A poll that could not tell the parent keeps the stored one (PARENT_COLUMNS, v14-session.ts).
          batch: batch([
            fp('f-old', { ...seen, result_id: 'unregistered' }, { preserve: ['parent_service_id'] }),
            fp('f-new', seen),
          ]),
          nextCursor: null,
          done: true,
          now: t(3),
        },
      ]);
      expect(results).toEqual([
        { written: 2, unchanged: 0, stale: 0, rejected: 0, missing: 1 },
        { written: 2, unchanged: 0, stale: 0, rejected: 0, missing: 1 },
      ]);
      // The commit's reads up to its unseen-session scan; the marks of the sessions it found follow, each its own.
      const scan = reads.findIndex((sql) => sql.includes('last_synced_at < k.started_at'));
      const own = reads.slice(0, scan + 1);
      const both = (sql: string) => /\bauthentications\b/.test(sql) && /\bfingerprints\b/.test(sql);
      expect(both(own[scan]!)).toBe(true);
      expect(own.filter((sql) => sql.includes('k.started_at'))).toHaveLength(1);
      expect(own.filter((sql) => /\bsession_versions\b/.test(sql)).length).toBeLessThanOrEqual(1);
      // DuckDB reads stored sessions by the rowid ranges of each table (duckdb-rowids.ts).
      if (dialect !== 'duckdb') {
        const storedReads = own.filter((sql) => /\bfirst_seen_at\b/.test(sql) && /\braw\b/.test(sql));
        expect(storedReads).toHaveLength(1);
        expect(both(storedReads[0]!)).toBe(true);
        // Child rows follow their sessions (session-triggers.ts): a new session's id has some only where the other
        // session table holds it, which that read tells; no child table is read.
        expect(own.filter((sql) => /\bsession_(text_fields|images|warnings)\b/.test(sql))).toEqual([]);
      }
      const stored = await driver.read((tx) =>
        tx.all(
          'SELECT service_id, missing_since IS NOT NULL AS missing FROM authentications UNION ALL ' +
            'SELECT service_id, missing_since IS NOT NULL FROM fingerprints ORDER BY service_id',
        ),
      );
      const parent = await driver.read((tx) =>
        tx.all("SELECT parent_service_id AS p, result_id AS r FROM fingerprints WHERE service_id = 'f-old'"),
      );
      expect(parent).toEqual([{ p: 'p-1', r: 'unregistered' }]);
      expect(stored.map((r) => [r.service_id, Boolean(Number(r.missing))])).toEqual([
        ['a-gone', true],
        ['a-new', false],
        ['a-old', false],
        ['f-gone', true],
        ['f-new', false],
        ['f-old', false],
      ]);
    } finally {
      await driver.close();
    }
  });
});
