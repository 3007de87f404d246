import type { Dialect } from './dialect.js';
import type { ColumnType } from './schema.js';

/** The SQL type of one column in each target, spelled as that target's DDL spells it. */
export type SqlTypes = Readonly<Record<Dialect, string>>;

/**
 * The SQL type of every column type in every target: the DDL, the migrations,
 * the exports and docs/schema.md all read it here. SQLite's names are the
 * ones knex has always declared (a `float` has REAL affinity); SQLite keeps
 * times as ISO 8601 text, which sorts and compares as the instants do.
 * PostgreSQL's `json` (not `jsonb`) keeps a document's text exactly: key
 * order, duplicate keys, whitespace and `\u0000` escapes.
 */
export const SQL_TYPES: Readonly<Record<ColumnType, SqlTypes>> = {
  text: { sqlite: 'text', postgres: 'text', duckdb: 'VARCHAR' },
  real: { sqlite: 'float', postgres: 'double precision', duckdb: 'DOUBLE' },
  integer: { sqlite: 'bigint', postgres: 'bigint', duckdb: 'BIGINT' },
  boolean: { sqlite: 'boolean', postgres: 'boolean', duckdb: 'BOOLEAN' },
  json: { sqlite: 'text', postgres: 'json', duckdb: 'JSON' },
  timestamp: { sqlite: 'text', postgres: 'timestamptz', duckdb: 'TIMESTAMPTZ' },
};

/** Per column type, the SQL types a migration created instead of today's (see `createTable` in migration-step.ts). */
export type SqlTypeOverrides = Readonly<Partial<Record<ColumnType, Partial<SqlTypes>>>>;

export function sqlType(type: ColumnType, dialect: Dialect, overrides: SqlTypeOverrides = {}): string {
  return overrides[type]?.[dialect] ?? SQL_TYPES[type][dialect];
}
