import type { DuckDBConnection } from '@duckdb/node-api';
import type { IdHashSource } from './duckdb-held-ids.js';

/**
 * The held-id filter's hashes (duckdb-held-ids.ts), computed by DuckDB on the
 * connection the driver holds at the time of asking (`connection`): its
 * statements run inside whatever transaction is under way there. A build
 * reads each table's two hash columns a data chunk at a time, each value a
 * number; reading the ids themselves, a string each, into JavaScript to hash
 * them there took most of a build's 28–49 s at 10M sessions.
 */
const listLength = (value: unknown) => (Array.isArray(value) ? value.length : 'no');

export function duckdbIdHashes(connection: () => DuckDBConnection): IdHashSource {
  return {
    async sessions() {
      const reader = await connection().runAndReadAll(
        'SELECT (SELECT count(*) FROM authentications) + (SELECT count(*) FROM fingerprints)',
      );
      return Number(reader.getRows()[0]?.[0] ?? 0);
    },

    async scan(table, visit) {
      // The 64-bit hash as two UINTEGER columns: a JavaScript number each, not a BigInt.
      const result = await connection().stream(
        `SELECT (hash(service_id) >> 32)::UINTEGER, (hash(service_id) & 4294967295)::UINTEGER FROM ${table}`,
      );
      for (;;) {
        const chunk = await result.fetchChunk();
        if (chunk === null || chunk.rowCount === 0) return;
        const high = chunk.getColumnVector(0);
        const low = chunk.getColumnVector(1);
        for (let i = 0; i < chunk.rowCount; i++) visit(high.getItem(i) as number, low.getItem(i) as number);
      }
    },

    async hash(ids) {
      // JSON text, unpacked by DuckDB (a LIST parameter is built one native call per value); list_transform keeps
      // the order of the ids.
      const reader = await connection().runAndReadAll(
        `SELECT list_transform(l, v -> (hash(v) >> 32)::UINTEGER),
                list_transform(l, v -> (hash(v) & 4294967295)::UINTEGER)
         FROM (SELECT from_json(?, '["VARCHAR"]') AS l)`,
        [JSON.stringify(ids)],
      );
      const [high, low] = reader.getRowsJS()[0] ?? [];
      if (!Array.isArray(high) || !Array.isArray(low) || high.length !== ids.length || low.length !== ids.length)
        throw new Error(`DuckDB hashed ${ids.length} ids into ${listLength(high)} and ${listLength(low)} values`);
      return { high: high as number[], low: low as number[] };
    },
  };
}
