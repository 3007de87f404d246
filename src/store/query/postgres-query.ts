import pg from 'pg';
import { UserError } from '../../errors.js';
import { leadingKeyword, READING_KEYWORDS } from './leading-keyword.js';
import { QueryRefusedError } from './query-refused-error.js';
import type { ReadOnlyQuery } from './read-only-query.js';

/**
 * Postgres in a READ ONLY transaction that is always rolled back, in the
 * target's schema. The statement goes by the extended protocol, which takes
 * exactly one statement: no `COMMIT; DELETE ...` can ride along.
 */
/** int8 (a count(*)) as a number where that is exact; pg gives it as text, since it may exceed 2^53. */
const INT8_OID = 20;
const types = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? (text: string) => (Number.isSafeInteger(Number(text)) ? Number(text) : text)
      : pg.types.getTypeParser(oid, format as 'text'),
};

export function postgresQuery(target: {
  connectionString: string;
  schema: string;
  redacted: string;
  password: string | null;
}): ReadOnlyQuery {
  const client = new pg.Client({ connectionString: target.connectionString });
  let connected: Promise<unknown> | undefined;
  // A driver may echo its connection settings; the password must not travel on.
  const failed = (error: unknown): UserError => {
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    return new UserError(
      'QUERY_FAILED',
      `postgres: ${target.password ? message.split(target.password).join('***') : message}`,
    );
  };
  return {
    run: async (sql) => {
      const keyword = leadingKeyword(sql);
      if (!READING_KEYWORDS.has(keyword))
        throw new QueryRefusedError(keyword === '' ? 'no statement given' : `got a ${keyword} statement`);
      try {
        await (connected ??= client.connect());
        await client.query(`SET search_path TO "${target.schema.replace(/"/g, '""')}"`);
        await client.query('BEGIN TRANSACTION READ ONLY');
      } catch (error) {
        throw new UserError(
          'TARGET_UNAVAILABLE',
          `cannot open target ${target.redacted}: ${failed(error).message.replace(/^postgres: /, '')}`,
        );
      }
      try {
        // pg 8 reads queryMode; its type declarations do not list it yet.
        const statement: pg.QueryArrayConfig & { queryMode: 'extended' } = {
          text: sql,
          rowMode: 'array',
          queryMode: 'extended',
          types,
        };
        const result = await client.query(statement);
        return { columns: (result.fields ?? []).map((f) => f.name), rows: (result.rows ?? []) as unknown[][] };
      } catch (error) {
        throw failed(error);
      } finally {
        await client.query('ROLLBACK').catch(() => undefined);
      }
    },
    close: () => client.end(),
  };
}
