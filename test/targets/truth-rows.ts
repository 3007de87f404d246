import type { RunningSimulator } from '../../src/simulator/index.js';
import { readTarget } from './read-target.js';

export type SessionResource = 'authentications' | 'fingerprints';

/** The columns a crawl must get right, the same shape for every target and interface. */
export interface SessionFacts {
  service_id: string;
  result_id: string | null;
  result_final: boolean | null;
  flag: string | null;
  parent_service_id?: string | null;
}

interface RenderedItem {
  service_id: string;
  status: { result: { id: string; final: boolean }; flag: string | null };
  fingerprint_parent?: { service_id?: string } | null;
}

/** What a perfect crawl stores, from the simulator's rendering of the token's sessions in that interface. */
export function truthFacts(sim: RunningSimulator, resource: SessionResource, apiVersion: '1.4' | '2'): SessionFacts[] {
  return (sim.world.truth('test-token', resource, apiVersion) as unknown as RenderedItem[])
    .map((i) => ({
      service_id: i.service_id,
      result_id: i.status.result.id,
      result_final: i.status.result.final,
      flag: i.status.flag,
      ...(resource === 'fingerprints' ? { parent_service_id: i.fingerprint_parent?.service_id ?? null } : {}),
    }))
    .sort((a, b) => compare(a.service_id, b.service_id));
}

/** Reads a target: its URL (opened and closed for the one query), or an open sink's query. */
export type TargetReader = string | ((sql: string) => Promise<Record<string, unknown>[]>);

/** The stored sessions that are not missing, booleans read alike whatever the dialect (SQLite gives 0/1). */
export async function storedFacts(target: TargetReader, resource: SessionResource): Promise<SessionFacts[]> {
  const parent = resource === 'fingerprints' ? ', parent_service_id' : '';
  const read = typeof target === 'string' ? (sql: string) => readTarget(target, sql) : target;
  const rows = await read(`SELECT service_id, result_id, result_final, flag${parent} FROM ${resource} WHERE missing_since IS NULL`);
  return rows
    .map((r) => ({
      service_id: String(r.service_id),
      result_id: r.result_id === null ? null : String(r.result_id),
      result_final: r.result_final === null ? null : Boolean(r.result_final),
      flag: r.flag === null ? null : String(r.flag),
      ...(resource === 'fingerprints' ? { parent_service_id: r.parent_service_id === null ? null : String(r.parent_service_id) } : {}),
    }))
    .sort((a, b) => compare(a.service_id, b.service_id));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
