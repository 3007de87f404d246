import { EXPORT_MARKER } from '../export/export-marker.js';

/**
 * What an existing database holds, told by its table names alone:
 * - `target`: ivsync's migration bookkeeping (`knex_migrations`): an ivsync
 *   target, which ivsync migrates and writes;
 * - `export`: an analyst copy made by `ivsync export` (its marker table, or,
 *   from exports made before the marker, ivsync's tables without the
 *   bookkeeping): read as it is, never migrated nor written;
 * - `empty`: no table at all: a new target;
 * - `foreign`: tables that are not ivsync's: the analyst's own database,
 *   which ivsync writes into only when told to.
 */
export type TargetKind = 'target' | 'export' | 'empty' | 'foreign';

/** Tables every ivsync export has held, with or without the marker. */
const EXPORTED = ['authentications', 'fingerprints', 'sync_windows'];

export function targetKind(tables: Iterable<string>): TargetKind {
  const names = new Set(tables);
  if (names.has(EXPORT_MARKER)) return 'export';
  if (names.has('knex_migrations')) return 'target';
  if (names.size === 0) return 'empty';
  return EXPORTED.every((name) => names.has(name)) ? 'export' : 'foreign';
}
