import { MIGRATIONS } from '../../migrations/index.js';
import { table } from '../../src/schema/schema.js';
import type { ColumnDef } from '../../src/schema/table-def.js';
import type { DuckdbDriver } from '../../src/store/drivers/duckdb/duckdb-driver.js';
import type { Row } from '../../src/store/drivers/sql-driver.js';

export const AUTHENTICATIONS = table('authentications');

/** A value of `column`'s type that tells row `i` apart. */
function valueOf(column: ColumnDef, i: number): unknown {
  if (column.name === 'service_id') return `au-${i}`;
  if (column.name === 'raw') return JSON.stringify({ service_id: `au-${i}`, pad: 'x'.repeat(200) });
  switch (column.type) {
    case 'integer':
    case 'real':
      return i;
    case 'boolean':
      return i % 2 === 0;
    case 'timestamp':
      return new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace('Z', '000Z');
    case 'json':
      return '{}';
    default:
      return `${column.name}-${i}`;
  }
}

/** Row `i` of `authentications`, its service id `au-<i>`. */
export function row(i: number): Row {
  return Object.fromEntries(AUTHENTICATIONS.columns.map((c) => [c.name, valueOf(c, i)]));
}

/** The driver's file migrated, with rows 0 to `count` - 1 of `authentications` in it. */
export async function stored(driver: DuckdbDriver, count: number): Promise<void> {
  await driver.migrate(MIGRATIONS);
  await driver.transaction((tx) =>
    tx.write(
      AUTHENTICATIONS,
      Array.from({ length: count }, (_, i) => row(i)),
      'fail',
    ),
  );
}
