import { expect } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { query } from './sqlite-target.js';

/** The simulated history spans the year before this epoch (simulator default). */
export const HISTORY_END = 1_790_000_000;
export const HISTORY_START = HISTORY_END - 366 * 86_400;

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

/** The fields of a rendered item the facts are read from, as the simulator renders them. */
function renderedItem(item: Record<string, unknown>): RenderedItem {
  return {
    service_id: item.service_id as string,
    status: item.status as RenderedItem['status'],
    fingerprint_parent: item.fingerprint_parent as RenderedItem['fingerprint_parent'],
  };
}

/**
 * The one oracle of the suites: what a perfect crawl stores, from the
 * simulator's rendering of the token's sessions in that interface, sorted by
 * service_id.
 */
export function truthFacts(
  sim: RunningSimulator,
  resource: SessionResource,
  apiVersion: '1.4' | '2' = '1.4',
  token = 'test-token',
): SessionFacts[] {
  return sim.world
    .truth(token, resource, apiVersion)
    .map(renderedItem)
    .map((i) => ({
      service_id: i.service_id,
      result_id: i.status.result.id,
      result_final: i.status.result.final,
      flag: i.status.flag,
      ...(resource === 'fingerprints' ? { parent_service_id: i.fingerprint_parent?.service_id ?? null } : {}),
    }))
    .sort((a, b) => (a.service_id < b.service_id ? -1 : a.service_id > b.service_id ? 1 : 0));
}

/** The truth as a SQLite target reads back (booleans as 0/1). */
export function truthRows(sim: RunningSimulator, resource: SessionResource, token = 'test-token') {
  return truthFacts(sim, resource, '1.4', token).map((f) => ({ ...f, result_final: f.result_final ? 1 : 0 }));
}

/** Asserts the SQLite target holds exactly the simulator's truth (no more, no less, no duplicates). */
export function expectTargetEqualsTruth(
  dbPath: string,
  sim: RunningSimulator,
  resources: readonly SessionResource[] = ['authentications', 'fingerprints'],
): void {
  for (const resource of resources) {
    const cols = resource === 'fingerprints' ? ', parent_service_id' : '';
    const stored = query(
      dbPath,
      `SELECT service_id, result_id, result_final, flag${cols} FROM ${resource} WHERE missing_since IS NULL ` +
        `ORDER BY service_id`,
    );
    const truth = truthRows(sim, resource);
    expect(truth.length).toBeGreaterThan(0);
    expect(stored.map((r) => r.service_id)).toEqual(truth.map((r) => r.service_id));
    expect(stored).toEqual(truth);
  }
}

/** Search pages the simulator answered with 200 (both resources, both interfaces). */
export function searchPagesServed(sim: RunningSimulator): number {
  let n = 0;
  for (const [route, byStatus] of Object.entries(sim.stats.byRoute)) {
    if (route.includes('/search/authentications') || route.includes('/search/fingerprints')) n += byStatus['200'] ?? 0;
  }
  return n;
}
