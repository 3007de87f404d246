import type { MigrationStep } from '../src/store/migration/migration-step.js';

/**
 * `sync_windows.cursor` holds the checkpoint cursor as JSON text from now on,
 * since a cursor may be an array or an object (src/cursor.ts). Cursors stored
 * before were plain strings; quoting them here makes every stored value read
 * one way, with no guessing whether a text that looks like JSON was meant as
 * JSON. `down` unquotes string cursors again and drops any other shape, whose
 * window then starts its pass over instead of resuming.
 */
export const name = '20261123120000_cursor-json';

export const steps: readonly MigrationStep[] = [
  {
    kind: 'sql',
    up: {
      sqlite: 'UPDATE sync_windows SET cursor = json_quote(cursor) WHERE cursor IS NOT NULL',
      postgres: 'UPDATE sync_windows SET cursor = to_json(cursor)::text WHERE cursor IS NOT NULL',
      duckdb: 'UPDATE sync_windows SET cursor = to_json(cursor)::VARCHAR WHERE cursor IS NOT NULL',
    },
    down: {
      sqlite:
        "UPDATE sync_windows SET cursor = CASE WHEN json_type(cursor) = 'text' THEN json_extract(cursor, '$') " +
        'END WHERE cursor IS NOT NULL',
      postgres:
        "UPDATE sync_windows SET cursor = CASE WHEN json_typeof(cursor::json) = 'string' THEN cursor::json #>> " +
        "'{}' END WHERE cursor IS NOT NULL",
      duckdb:
        "UPDATE sync_windows SET cursor = CASE WHEN json_type(cursor::JSON) = 'VARCHAR' THEN cursor::JSON ->> " +
        "'$' END WHERE cursor IS NOT NULL",
    },
  },
];
