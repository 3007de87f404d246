import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../migrations/index.js';
import { SQL_TYPES } from '../../src/schema/column-sql-type.js';
import { duckdbKeyless } from '../../src/store/drivers/duckdb/duckdb-keyless.js';
import { openSink } from '../../src/store/open-sink.js';
import type { Migration, MigrationStep } from '../../src/store/migration/migration-step.js';
import { TABLES } from '../../src/schema/schema.js';
import { VIEWS } from '../../src/store/views.js';
import { sessionTriggerNames, sessionTriggerSql, type TriggerDialect } from '../../src/store/session-triggers.js';
import { freshTarget } from '../targets/each-target.js';
import { forEachTarget } from './for-each-target.js';
import { targetSchema } from './target-catalog.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Today's definitions: what a migration must never read, or it changes whenever they do. */
const TODAY = [
  'src/schema/schema.ts',
  'src/schema/column.ts',
  'src/schema/session-tables.ts',
  'src/schema/sync-tables.ts',
  'src/schema/webhook-tables.ts',
  'src/schema/rejected-items-table.ts',
  'src/schema/catalog-tables.ts',
  'src/schema/verify-tables.ts',
  'src/schema/refresh-tables.ts',
  'src/schema/history-tables.ts',
  'src/schema/column-sql-type.ts',
  'src/store/views.ts',
  'src/store/session-triggers.ts',
  'src/store/drivers/duckdb/duckdb-keyless.ts',
];

/** The modules `file` imports at run time (type-only imports are erased), as paths from the repository root. */
function runtimeImports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'([^']+)';/gm)) {
    const [, typeOnly, specifier] = match;
    if (typeOnly !== undefined || !specifier!.startsWith('.')) continue;
    found.push(relative(ROOT, resolve(dirname(join(ROOT, file)), specifier!.replace(/\.js$/, '.ts'))));
  }
  return found;
}

/** Every module `file` reaches at run time, `file` included, with the chain that reached each. */
function reachable(file: string): Map<string, string[]> {
  const seen = new Map<string, string[]>([[file, [file]]]);
  const queue = [file];
  while (queue.length > 0) {
    const current = queue.shift()!;
    for (const next of runtimeImports(current)) {
      if (seen.has(next)) continue;
      seen.set(next, [...seen.get(current)!, next]);
      queue.push(next);
    }
  }
  return seen;
}

describe('migrations are frozen', () => {
  it("no migration reaches a module of today's definitions, directly or through another module", () => {
    const files = readdirSync(join(ROOT, 'migrations'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `migrations/${f}`);
    expect(files.length).toBeGreaterThan(MIGRATIONS.length);
    const offending = files.flatMap((file) =>
      [...reachable(file)].filter(([module]) => TODAY.includes(module)).map(([, chain]) => chain.join(' -> ')),
    );
    expect(offending).toEqual([]);
  });

  it("the check sees an import of today's definitions, also through another module", () => {
    const fromDoc = [...reachable('src/store/schema-doc.ts').keys()];
    expect(fromDoc).toEqual(
      expect.arrayContaining(['src/schema/schema.ts', 'src/schema/session-tables.ts', 'src/store/views.ts']),
    );
    expect(runtimeImports('src/store/drivers/knex-ddl.ts')).not.toContain('src/store/migration/migration-step.ts');
  });

  it('every file in migrations/ is listed once, oldest first, names as their files', () => {
    const files = readdirSync(join(ROOT, 'migrations'))
      .filter((f) => /^\d{14}_.*\.ts$/.test(f))
      .map((f) => f.replace(/\.ts$/, ''));
    expect(MIGRATIONS.map((m) => m.name)).toEqual(files.sort());
  });
});

/** A target made straight from today's definitions: what the migrations, applied from nothing, must add up to. */
const TODAY_AT_ONCE: Migration = {
  name: 'today',
  steps: [
    ...TABLES.map((table): MigrationStep => {
      return { kind: 'createTable', table, types: SQL_TYPES, duckdbKey: !duckdbKeyless(table.name) };
    }),
    ...VIEWS.map((view): MigrationStep => ({ kind: 'createView', view })),
    ...(['sqlite', 'postgres'] as const).flatMap((dialect) =>
      sessionTriggerSql(dialect).map((sql) => only(dialect, sql)),
    ),
  ],
};

/** A step of SQL that runs in one dialect only. */
function only(dialect: TriggerDialect, sql: string): MigrationStep {
  const statements = { sqlite: 'SELECT 1', postgres: 'SELECT 1', duckdb: 'SELECT 1', [dialect]: sql };
  return { kind: 'sql', up: statements, down: statements };
}

forEachTarget((dialect, ctx) => {
  it('a new target has the tables, columns, types, keys, indexes, views and triggers defined today', async () => {
    const migrated = await targetSchema(await ctx.open(), dialect);
    const other = await freshTarget(dialect);
    const sink = await openSink(other.url, { migrations: [TODAY_AT_ONCE] });
    try {
      const today = await targetSchema(sink, dialect);
      expect(Object.keys(migrated.tables).sort()).toEqual(TABLES.map((t) => t.name).sort());
      expect(Object.keys(migrated.views).sort()).toEqual(VIEWS.map((v) => v.name).sort());
      if (dialect !== 'duckdb')
        expect(Object.keys(migrated.triggers)).toEqual(expect.arrayContaining(sessionTriggerNames(dialect)));
      expect(migrated).toEqual(today);
    } finally {
      await sink.close();
      await other.dispose();
    }
  });
});
