import type { SqlDriver } from './sql-driver.js';
import { toStoreError } from './store-error.js';

/**
 * The driver with every error it raises turned into a StoreError (see
 * store-error.ts) on its way out, so that nothing above src/store sees a
 * statement, a row or a bound value in an error message, and the stores can
 * tell a refused row from a failed target.
 */
export function withStoreErrors(driver: SqlDriver): SqlDriver {
  const rethrow = (error: unknown): never => {
    throw toStoreError(error, driver.dialect);
  };
  return {
    dialect: driver.dialect,
    transaction: (work) => driver.transaction(work).catch(rethrow),
    read: (work) => driver.read(work).catch(rethrow),
    migrate: (migrations) => driver.migrate(migrations).catch(rethrow),
    isMigrated: () => driver.isMigrated().catch(rethrow),
    ...(driver.copyCsv ? { copyCsv: (copy) => driver.copyCsv!(copy).catch(rethrow) } : {}),
    ...(driver.keysetChunks ? { keysetChunks: (read) => rethrowing(driver.keysetChunks!(read), rethrow) } : {}),
    close: () => driver.close().catch(rethrow),
  };
}

/** The chunks of `chunks`, its errors turned by `rethrow`. */
async function* rethrowing<T>(chunks: AsyncIterable<T>, rethrow: (error: unknown) => never): AsyncGenerator<T> {
  try {
    yield* chunks;
  } catch (error) {
    rethrow(error);
  }
}
