import type { Dialect } from './dialect.js';
import type { ColumnType } from './schema.js';

/** The SQL type of one column in each target, spelled as that target's DDL spells it. */
export type SqlTypes = Readonly<Record<Dialect, string>>;

/**
 * The SQL type of every column type in every target, as today's schema has
 * them: the exports and docs/schema.md read it here. The migrations carry
 * their own copies (migrations/README.md). SQLite's names are the
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

export function sqlType(type: ColumnType, dialect: Dialect): string {
  return SQL_TYPES[type][dialect];
}
