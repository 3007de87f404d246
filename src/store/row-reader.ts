import type { ColumnDef, TableDef } from '../schema/schema.js';

/**
 * The one reader of stored values: whatever a dialect hands back (SQLite's
 * 0/1 booleans, DuckDB's bigints, PostgreSQL's parsed JSON), a value comes
 * out as the schema definition types its column: booleans as booleans,
 * integers and reals as numbers, JSON and text as strings, null as null.
 */
export function readValue(column: Pick<ColumnDef, 'type'>, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case 'boolean':
      return typeof value === 'boolean' ? value : Number(value) !== 0;
    case 'real':
    case 'integer':
      return Number(value);
    case 'json':
      return typeof value === 'string' ? value : JSON.stringify(value);
    default:
      return typeof value === 'string' ? value : String(value);
  }
}

/** A stored row with each of `def`'s columns it holds typed by `readValue`; columns it lacks are left out. */
export function readRow(def: TableDef, row: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of def.columns) if (column.name in row) out[column.name] = readValue(column, row[column.name]);
  return out;
}

/** Typed accessors for one row of `def`, for code that builds its own objects from a row. */
export function rowReader(def: TableDef, row: Readonly<Record<string, unknown>>) {
  const column = (name: string): ColumnDef => {
    const found = def.columns.find((c) => c.name === name);
    if (!found) throw new Error(`${def.name} has no column ${name}`);
    return found;
  };
  return {
    text: (name: string): string => String(readValue(column(name), row[name])),
    textOrNull: (name: string): string | null => readValue(column(name), row[name]) as string | null,
    number: (name: string): number => Number(readValue(column(name), row[name])),
    numberOrNull: (name: string): number | null => readValue(column(name), row[name]) as number | null,
    boolean: (name: string): boolean => readValue(column(name), row[name]) === true,
  };
}
