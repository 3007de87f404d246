import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { TABLES } from '../../src/schema/schema.js';
import { exportTarget } from '../../src/store/export/export.js';
import { parseExportTarget } from '../../src/store/export/export-target.js';
import { FOREIGN_STALE_MS, WORK_DIR_PREFIX, WorkDir } from '../../src/store/export/work-dir.js';
import { openSink } from '../../src/store/open-sink.js';
import { POSTGRES_URL } from '../helpers/postgres.js';
import { runIvsync, spawnChild, spawnIvsync } from '../helpers/run-cli.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/wait.js';
import { VIEWS } from '../../src/store/views.js';
import { freshTarget, postgresUp } from '../targets/each-target.js';

const tempDir = useTempDir();

/** The Parquet files a whole export writes. */
const EXPORTED = [...TABLES, ...VIEWS].map((r) => `${r.name}.parquet`).sort();

/** A work directory as an export makes it, named by `owner` (null: none), holding a staged file. */
function workDir(parent: string, name: string, owner: { host: string; pid: number } | null): string {
  const dir = join(parent, `${WORK_DIR_PREFIX}${name}`);
  mkdirSync(dir);
  if (owner) writeFileSync(join(dir, 'owner.json'), JSON.stringify(owner));
  writeFileSync(join(dir, 'staging.duckdb'), 'rows');
  return dir;
}

describe("an export's work directory", () => {
  it('removes those of stopped exports before it starts, and keeps those of running ones', async () => {
    const source = await freshTarget('sqlite');
    const sink = await openSink(source.url);
    // A process that has ended: its pid runs no more.
    const ended = spawnSync(process.execPath, ['-e', '0']).pid;
    const running = spawnChild(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], {});
    const dir = tempDir();
    // Another export of this process, still running.
    const { work: ours } = await WorkDir.make(dir);
    try {
      const here = hostname();
      const stale = [
        workDir(dir, 'ended', { host: here, pid: ended }),
        // A container's first process has the same pid every time it starts.
        workDir(dir, 'same-pid', { host: here, pid: process.pid }),
        workDir(dir, 'elsewhere-old', { host: 'another-machine', pid: 1 }),
        workDir(dir, 'unnamed-old', null),
      ];
      const longAgo = (Date.now() - FOREIGN_STALE_MS - 60_000) / 1000;
      for (const old of stale.slice(2)) {
        for (const name of readdirSync(old)) utimesSync(join(old, name), longAgo, longAgo);
        utimesSync(old, longAgo, longAgo);
      }
      const kept = [
        ours.path,
        workDir(dir, 'running', { host: here, pid: running.pid! }),
        workDir(dir, 'elsewhere-new', { host: 'another-machine', pid: 1 }),
        workDir(dir, 'unnamed-new', null),
      ];
      // Files of the destination that are not work directories are never touched.
      writeFileSync(join(dir, `${WORK_DIR_PREFIX}notes.txt`), 'mine');

      const report = await exportTarget(sink, parseExportTarget(`parquet:${dir}`));

      expect(report.removed.sort()).toEqual(stale.sort());
      const left = readdirSync(dir).sort();
      expect(left).toEqual(
        [...EXPORTED, ...kept.map((k) => k.slice(dir.length + 1)), `${WORK_DIR_PREFIX}notes.txt`].sort(),
      );
    } finally {
      await ours.remove();
      running.kill('SIGKILL');
      await running.exited;
      await sink.close();
      await source.dispose();
    }
  });

  it('leaves nothing beside a DuckDB export but the file', async () => {
    const source = await freshTarget('sqlite');
    const sink = await openSink(source.url);
    try {
      const dir = tempDir();
      const report = await exportTarget(sink, parseExportTarget(`duckdb:${join(dir, 'copy.duckdb')}`));
      expect(report.removed).toEqual([]);
      expect(readdirSync(dir)).toEqual(['copy.duckdb']);
    } finally {
      await sink.close();
      await source.dispose();
    }
  });

  it.skipIf(!postgresUp)(
    'left by an export killed with SIGKILL is removed by the next export there, which says so',
    async () => {
      const source = await freshTarget('postgres');
      const schema = new URL(source.url).searchParams.get('schema')!;
      await (await openSink(source.url)).close();
      // Holds the export at its second table: the first is written by then, in the work directory.
      const held = `"${schema}".${TABLES[1]!.name}`;
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      try {
        await admin.query('BEGIN');
        await admin.query(`LOCK TABLE ${held} IN ACCESS EXCLUSIVE MODE`);
        const dir = tempDir();
        const child = spawnIvsync(['export', '--db', source.url, '--to', `parquet:${dir}`], {});
        const waiting = async () =>
          (await admin.query('SELECT 1 FROM pg_locks WHERE NOT granted AND relation = $1::regclass', [held]))
            .rowCount === 1;
        const firstWritten = () =>
          readdirSync(dir).some(
            (name) =>
              name.startsWith(WORK_DIR_PREFIX) && readdirSync(join(dir, name)).includes(`${TABLES[0]!.name}.parquet`),
          );
        await until(async () => firstWritten() && (await waiting()), {
          child,
          what: 'the export to write its first table and wait for its second',
        });
        child.kill('SIGKILL');
        expect((await child.exited).signal).toBe('SIGKILL');
        await admin.query('ROLLBACK');
        const left = readdirSync(dir);
        expect(left).toHaveLength(1);
        expect(left[0]!.startsWith(WORK_DIR_PREFIX)).toBe(true);
        expect(readdirSync(join(dir, left[0]!))).toContain('owner.json');

        const again = await runIvsync(['export', '--db', source.url, '--to', `parquet:${dir}`, '--json']);
        expect(again.code).toBe(0);
        expect((JSON.parse(again.stdout) as { removed: string[] }).removed).toEqual([join(dir, left[0]!)]);
        expect(readdirSync(dir).sort()).toEqual(EXPORTED);
      } finally {
        await admin.end();
        await source.dispose();
      }
    },
  );
});
