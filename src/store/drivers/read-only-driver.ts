import type { SqlDriver } from './sql-driver.js';

/**
 * The driver with every write refused before it starts: for an export,
 * which ivsync reads as it is (a command that would write into it, such as
 * `reset` or `verify`, fails with `refusal` and leaves it untouched), and
 * for a target opened read-only.
 */
export function readOnlyDriver(driver: SqlDriver, refusal: () => Error): SqlDriver {
  return {
    dialect: driver.dialect,
    transaction: () => Promise.reject(refusal()),
    read: (work) => driver.read(work),
    migrate: () => Promise.reject(refusal()),
    isMigrated: () => driver.isMigrated(),
    close: () => driver.close(),
  };
}
