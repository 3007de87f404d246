import type { SessionFacts, SessionResource } from '../helpers/truth.js';
import { readTarget } from './read-target.js';

export { truthFacts, type SessionFacts, type SessionResource } from '../helpers/truth.js';

/** Reads a target: its URL (opened and closed for the one query), or an open sink's query. */
export type TargetReader = string | ((sql: string) => Promise<Record<string, unknown>[]>);

/** The stored sessions that are not missing, booleans read alike whatever the dialect (SQLite gives 0/1). */
export async function storedFacts(target: TargetReader, resource: SessionResource): Promise<SessionFacts[]> {
  const parent = resource === 'fingerprints' ? ', parent_service_id' : '';
  const read = typeof target === 'string' ? (sql: string) => readTarget(target, sql) : target;
  const rows = await read(
    `SELECT service_id, result_id, result_final, flag${parent} FROM ${resource} WHERE missing_since IS NULL`,
  );
  return rows
    .map((r) => ({
      service_id: String(r.service_id),
      result_id: r.result_id === null ? null : String(r.result_id),
      result_final: r.result_final === null ? null : Boolean(r.result_final),
      flag: r.flag === null ? null : String(r.flag),
      ...(resource === 'fingerprints'
        ? { parent_service_id: r.parent_service_id === null ? null : String(r.parent_service_id) }
        : {}),
    }))
    .sort((a, b) => compare(a.service_id, b.service_id));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
