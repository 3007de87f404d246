import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { parseTarget } from '../../src/store/target/parse-target.js';
import { execute } from './sqlite-target.js';

/** Runs DDL on a target as another program would: the sink's own query path is for reads. */
export async function executeOn(url: string, statements: readonly string[]): Promise<void> {
  const parsed = parseTarget(url);
  if (parsed.kind === 'sqlite') {
    for (const sql of statements) execute(parsed.path, sql);
  } else if (parsed.kind === 'duckdb') {
    const instance = await DuckDBInstance.create(parsed.path);
    const connection = await instance.connect();
    try {
      for (const sql of statements) await connection.run(sql);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  } else {
    const client = new pg.Client({ connectionString: parsed.connectionString });
    await client.connect();
    try {
      await client.query(`SET search_path TO "${parsed.schema}"`);
      for (const sql of statements) await client.query(sql);
    } finally {
      await client.end();
    }
  }
}
