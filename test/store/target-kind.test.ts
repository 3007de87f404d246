import { describe, expect, it } from 'vitest';
import { targetKind, type TargetKind } from '../../src/store/target/target-kind.js';

describe('targetKind: whose database it is, by its tables', () => {
  it.each<[string, string[], TargetKind]>([
    ['no table: a new target', [], 'empty'],
    ['migration bookkeeping: an ivsync target', ['knex_migrations', 'authentications', 'sync_windows'], 'target'],
    ['bookkeeping alone (migrated up to nothing yet)', ['knex_migrations'], 'target'],
    ['the export marker', ['ivsync_export', 'authentications', 'fingerprints', 'sync_windows'], 'export'],
    ['the marker wins over bookkeeping copied by hand', ['ivsync_export', 'knex_migrations'], 'export'],
    [
      'an export made before the marker: ivsync tables, no bookkeeping',
      ['authentications', 'fingerprints', 'sync_windows', 'v_daily_results'],
      'export',
    ],
    ["the analyst's own tables", ['my_notes'], 'foreign'],
    ['one ivsync table name among them is not enough', ['authentications', 'my_notes'], 'foreign'],
  ])('%s', (_name, tables, kind) => {
    expect(targetKind(tables)).toBe(kind);
  });
});
