import { expect } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { query } from './sqlite-target.js';

/** The simulated history spans the year before this epoch (simulator default). */
export const HISTORY_END = 1_790_000_000;
export const HISTORY_START = HISTORY_END - 366 * 86_400;

interface V14Item {
  service_id: string;
  status: { result: { id: string; final: boolean }; flag: string | null };
  fingerprint_parent?: { service_id?: string };
}

/** What a perfect crawl stores for a resource: id → the fields that matter. */
export function truthRows(sim: RunningSimulator, resource: 'authentications' | 'fingerprints', token = 'test-token') {
  return (sim.world.truth(token, resource) as unknown as V14Item[])
    .map((i) => ({
      service_id: i.service_id,
      result_id: i.status.result.id,
      result_final: i.status.result.final ? 1 : 0,
      flag: i.status.flag,
      ...(resource === 'fingerprints' ? { parent_service_id: i.fingerprint_parent?.service_id ?? null } : {}),
    }))
    .sort((a, b) => a.service_id.localeCompare(b.service_id));
}

/** Asserts the SQLite target holds exactly the simulator's truth (no more, no less, no duplicates). */
export function expectTargetEqualsTruth(dbPath: string, sim: RunningSimulator, resources: ReadonlyArray<'authentications' | 'fingerprints'> = ['authentications', 'fingerprints']): void {
  for (const resource of resources) {
    const cols = resource === 'fingerprints' ? ', parent_service_id' : '';
    const stored = query(dbPath, `SELECT service_id, result_id, result_final, flag${cols} FROM ${resource} WHERE missing_since IS NULL ORDER BY service_id`);
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
