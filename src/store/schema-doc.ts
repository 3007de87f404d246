import { API_VERSIONS } from '../config/constants.js';
import { REQUIRED_FIELDS } from '../normalize/normalize-item.js';
import { STORABLE_TEXT_RULE } from '../normalize/storable-text.js';
import { sqlType } from '../schema/column-sql-type.js';
import { DUCKDB_KEYLESS_TABLES } from './drivers/duckdb/duckdb-keyless.js';
import { TABLES } from '../schema/schema.js';
import type { ColumnDef, TableDef, ViewDef } from '../schema/schema.js';
import { VIEWS } from './views.js';

/** The command that rewrites docs/schema.md from the schema definition. */
export const SCHEMA_DOC_COMMAND = 'npm run build && node dist/src/store/write-schema-doc.js';

/**
 * docs/schema.md: every table (description, primary key, indexes, columns with
 * type and SQL type in each target, nullability, meaning and the v1.4 and v2
 * JSON paths they come from)
 * and every view. Generated, so the page cannot drift from the tables the
 * migrations create. Deterministic: the same schema gives the same text.
 */
export function renderSchemaDoc(tables: readonly TableDef[] = TABLES, views: readonly ViewDef[] = VIEWS): string {
  const out: string[] = [
    '# ivsync tables and views',
    '',
    `<!-- Generated from src/schema/schema.ts and src/store/views.ts; do not edit. Regenerate with: ` +
      `${SCHEMA_DOC_COMMAND} -->`,
    '',
    'Every target (SQLite, DuckDB, PostgreSQL) has these tables, columns and views;',
    "the SQLite, DuckDB and PostgreSQL columns give each column's SQL type there.",
    'Times are stored twice: `*_at` (and `missing_since`) as a `timestamp`, and',
    '`*_epoch` as a real number of Unix seconds. A `timestamp` is a timestamp with',
    'time zone in DuckDB and PostgreSQL (UTC, microseconds kept) and ISO 8601 text in',
    'UTC with six fraction digits in SQLite (`2026-11-22T03:06:17.123456Z`), which',
    'sorts and compares as the instants do; exports to DuckDB have TIMESTAMPTZ and',
    'exports to Parquet UTC timestamps in microseconds. `json` columns hold the JSON',
    'text exactly as received (PostgreSQL `json`, not `jsonb`, so key order,',
    'duplicate keys and whitespace are kept). The path columns name the JSON path of',
    "the service's item (or object) each value comes from; an empty path means",
    'ivsync sets the value itself.',
    '',
    '## Contents',
    '',
    ...tables.map((t) => `- [${t.name}](#${anchor(t.name)})`),
    '- [Views](#views)',
    '- [Items that are kept aside](#items-that-are-kept-aside)',
    '- [Characters no target can store](#characters-no-target-can-store)',
    '',
  ];
  for (const t of tables) out.push(...renderTable(t));
  out.push(...renderViews(views), ...renderRequiredFields(), ...renderStorableText());
  return `${out.join('\n').trimEnd()}\n`;
}

const KEYLESS_NOTE = ' (in DuckDB kept by ivsync, not declared: see src/store/drivers/duckdb/duckdb-keyless.ts)';

function renderTable(t: TableDef): string[] {
  const keyless = DUCKDB_KEYLESS_TABLES.includes(t.name) ? KEYLESS_NOTE : '';
  const lines = [
    `## ${t.name}`,
    '',
    cell(t.description),
    '',
    `Primary key: ${t.primaryKey.map(code).join(', ')}${keyless}.`,
  ];
  if (t.indexes !== undefined && t.indexes.length > 0) {
    const indexes = t.indexes.map(
      (i) =>
        `(${i.columns.map(code).join(', ')})${i.unique === true ? ' unique' : ''}` +
        (i.where === undefined ? '' : ` where ${code(i.where)}`),
    );
    lines.push(`Indexes: ${indexes.join('; ')}.`);
  }
  lines.push(
    '',
    '| column | type | SQLite | DuckDB | PostgreSQL | null | meaning | v1.4 path | v2 path |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const c of t.columns) lines.push(renderColumn(t, c));
  lines.push('');
  return lines;
}

function renderColumn(t: TableDef, c: ColumnDef): string {
  const nullable = t.primaryKey.includes(c.name) ? false : (c.nullable ?? true);
  const sql = (['sqlite', 'duckdb', 'postgres'] as const).map((dialect) => sqlType(c.type, dialect));
  const cells = [code(c.name), c.type, ...sql, nullable ? 'yes' : 'no', cell(c.description), path(c.v14), path(c.v2)];
  return `| ${cells.join(' | ')} |`;
}

function renderViews(views: readonly ViewDef[]): string[] {
  const lines = ['## Views', ''];
  if (views.length === 0) return [...lines, 'No views are defined.', ''];
  lines.push('| view | meaning |', '|---|---|');
  for (const v of views) lines.push(`| ${code(v.name)} | ${cell(v.description)} |`);
  lines.push('');
  return lines;
}

function renderRequiredFields(): string[] {
  return [
    '## Items that are kept aside',
    '',
    'An item becomes a row when it has the fields below; any other field that is',
    'missing or null is a null column. An item without them, or with a known field',
    'of the wrong type (for example `status.result.final` that is not a boolean, or',
    'an `activity.name` of the other resource), is stored in `rejected_items` with the',
    'JSON path and what was expected; it never stops a run. Unknown keys are kept in',
    '`raw` and never reject an item.',
    '',
    '| interface | required |',
    '|---|---|',
    // Listed explicitly: '2' is an integer-like key and would come first.
    ...API_VERSIONS.map((version) => `| ${version} | ${REQUIRED_FIELDS[version].map(cell).join('; ')} |`),
    '',
  ];
}

function renderStorableText(): string[] {
  return [
    '## Characters no target can store',
    '',
    STORABLE_TEXT_RULE,
    '',
    'Should a target still refuse a row, that item alone is kept aside in `rejected_items`',
    "with the target's one-line reason (`refused by the target: …`) and its `raw`; the rest",
    'of its page or delivery is stored as usual.',
    '',
  ];
}

function code(text: string): string {
  return `\`${text}\``;
}

function path(p: string | undefined): string {
  return p === undefined ? '' : code(p.replace(/\|/g, '\\|'));
}

/** Table cell text: pipes escaped, one line, no stray HTML. */
function cell(text: string): string {
  return text
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/\s*\n\s*/g, ' ');
}

function anchor(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9_ -]/g, '')
    .replace(/ /g, '-');
}
