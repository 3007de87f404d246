import { table, type ColumnDef } from '../schema/schema.js';
import { readBoolean, readNumber, readObject, readString } from './field-readers.js';
import type { JsonObject } from './field-readers.js';
import type { ApiVersion, Resource } from './rows.js';
import { textFieldText } from './text-field-rows.js';

/** A path of the schema that names one value and nothing else: `a.b.c`. Paths with prose are read by hand. */
const PLAIN = /^[a-z_]+(\.[a-z_]+)*$/;

interface PlainColumn {
  name: string;
  keys: readonly string[];
  /** The path of each object on the way to the leaf (`a`, `a.b` for `a.b.c`), for the error that names it. */
  parents: readonly string[];
  read: (parent: JsonObject | null, key: string, path: string) => unknown;
  path: string;
}

/**
 * The columns of a session table that come straight from one path of the
 * item, as the schema definition names it (src/schema/schema.ts, which also
 * writes docs/schema.md): each JSON path is named once. A text field's value
 * may be any JSON (kept as its text); every other leaf has the column's type.
 */
function plainColumns(resource: Resource, apiVersion: ApiVersion): PlainColumn[] {
  const out: PlainColumn[] = [];
  for (const column of table(resource).columns) {
    const path = apiVersion === '1.4' ? column.v14 : column.v2;
    if (path === undefined || !PLAIN.test(path) || column.name === 'service_id') continue;
    const keys = path.split('.');
    const parents = keys.slice(0, -1).map((_, i) => keys.slice(0, i + 1).join('.'));
    out.push({ name: column.name, keys, parents, read: leafReader(column, path), path });
  }
  return out;
}

function leafReader(column: ColumnDef, path: string): PlainColumn['read'] {
  if (path.startsWith('text_fields.')) return (parent, key) => (parent === null ? null : textFieldText(parent[key]));
  if (column.type === 'boolean') return readBoolean;
  if (column.type === 'text') return readString;
  if (column.type === 'real') return readNumber;
  throw new Error(`${column.name}: no plain reader for a ${column.type} column`);
}

/** Per resource and interface: a row with every column null, and the plain columns. */
const CACHE = new Map<string, { blank: Readonly<Record<string, null>>; plain: readonly PlainColumn[] }>();

/**
 * A row of the resource's table from an item of the interface: every column
 * null, then every plain column read from its path, then `irregular`, the
 * columns the caller reads by hand (shapes a path cannot say, the
 * observation's own columns). A column the interface does not have stays null.
 */
export function sessionRow<R>(
  resource: Resource,
  apiVersion: ApiVersion,
  item: JsonObject,
  irregular: Record<string, unknown>,
): R {
  const id = `${resource}/${apiVersion}`;
  let known = CACHE.get(id);
  if (known === undefined) {
    const blank = Object.fromEntries(table(resource).columns.map((c) => [c.name, null]));
    CACHE.set(id, (known = { blank, plain: plainColumns(resource, apiVersion) }));
  }
  // A copy of one shape, not thirty-odd properties added one by one: every row of a table shares its hidden class.
  const out: Record<string, unknown> = { ...known.blank };
  for (const column of known.plain) {
    let parent: JsonObject | null = item;
    const last = column.keys.length - 1;
    for (let i = 0; i < last && parent !== null; i++) parent = readObject(parent, column.keys[i]!, column.parents[i]!);
    out[column.name] = column.read(parent, column.keys[last]!, column.path);
  }
  return Object.assign(out, irregular) as R;
}
