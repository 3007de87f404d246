import { DuckdbDriver } from '../../src/store/drivers/duckdb/duckdb-driver.js';
import { PostgresDriver } from '../../src/store/drivers/postgres/postgres-driver.js';
import type { SqlDriver } from '../../src/store/drivers/sql-driver.js';
import { SqliteDriver } from '../../src/store/drivers/sqlite/sqlite-driver.js';
import { openSink } from '../../src/store/open-sink.js';
import { parseTarget } from '../../src/store/target/parse-target.js';

/** The target's driver itself, after openSink migrated it: for a test's own SQL, reads and writes. */
export async function rawDriver(url: string): Promise<SqlDriver> {
  await (await openSink(url)).close();
  const parsed = parseTarget(url);
  switch (parsed.kind) {
    case 'sqlite':
      return SqliteDriver.open(parsed.path);
    case 'duckdb':
      return DuckdbDriver.open(parsed.path, () => new Date());
    case 'postgres':
      return PostgresDriver.open({ connectionString: parsed.connectionString, schema: parsed.schema });
  }
}
