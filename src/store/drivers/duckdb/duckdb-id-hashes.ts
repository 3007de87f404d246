import type { DuckDBConnection } from '@duckdb/node-api';
import type { IdHashSource } from './duckdb-held-ids.js';

/**
 * The high and low halves of DuckDB's 64-bit hash of the VARCHAR `value`, as UINTEGERs (a JavaScript number each,
 * not a BigInt). The same expressions for the scan and for the ids asked about: the filter is right only while both
 * hash alike.
 */
const high = (value: string) => `(hash(${value}) >> 32)::UINTEGER`;
const low = (value: string) => `(hash(${value}) & 4294967295)::UINTEGER`;

const listLength = (value: unknown) => (Array.isArray(value) ? value.length : 'no');

/**
 * The held-id filter's hashes (duckdb-held-ids.ts), computed by DuckDB on the
 * connection the driver holds at the time of asking (`connection`): its
 * statements run inside whatever transaction is under way there. A build
 * reads each table's two hash columns a data chunk at a time, each value a
 * number; reading the ids themselves, a string each, into JavaScript to hash
 * them there took most of a build's 28–49 s at 10M sessions.
 */
export function duckdbIdHashes(connection: () => DuckDBConnection): IdHashSource {
  return {
    async sessions() {
      const reader = await connection().runAndReadAll(
        'SELECT (SELECT count(*) FROM authentications) + (SELECT count(*) FROM fingerprints)',
      );
      return Number(reader.getRows()[0]?.[0] ?? 0);
    },

    async scan(table, visit) {
      const result = await connection().stream(`SELECT ${high('service_id')}, ${low('service_id')} FROM ${table}`);
      for (;;) {
        const chunk = await result.fetchChunk();
        // A chunk's row count is a native call each time it is read: read once a chunk, not once a row (the 4.1M
        // rows of a 1M-session file in 0.6 s of CPU, against 1.8–2.1 s).
        const rows = chunk?.rowCount ?? 0;
        if (chunk === null || rows === 0) return;
        const highs = chunk.getColumnVector(0);
        const lows = chunk.getColumnVector(1);
        for (let i = 0; i < rows; i++) visit(highs.getItem(i) as number, lows.getItem(i) as number);
      }
    },

    async hash(ids) {
      // JSON text, unpacked by DuckDB (a LIST parameter is built one native call per value); list_transform keeps
      // the order of the ids.
      const reader = await connection().runAndReadAll(
        `SELECT list_transform(l, v -> ${high('v')}), list_transform(l, v -> ${low('v')})
         FROM (SELECT from_json(?, '["VARCHAR"]') AS l)`,
        [JSON.stringify(ids)],
      );
      const [highs, lows] = reader.getRowsJS()[0] ?? [];
      if (!Array.isArray(highs) || !Array.isArray(lows) || highs.length !== ids.length || lows.length !== ids.length)
        throw new Error(`DuckDB hashed ${ids.length} ids into ${listLength(highs)} and ${listLength(lows)} values`);
      return { high: highs as number[], low: lows as number[] };
    },
  };
}
