import { normalizeAuthConfig } from '../../normalize/auth-config-rows.js';
import { normalizeCatalog } from '../../normalize/catalog-rows.js';
import { toIsoMicros } from '../../normalize/time.js';
import type { CallOptions } from '../../api/service-client.js';
import type { DeliveryStore } from '../../store/sink.js';

/** The part of the API client the catalog refresh uses (v2 only). */
export interface CatalogClient {
  config(options?: CallOptions): Promise<unknown>;
  catalog(options?: CallOptions): Promise<unknown>;
}

export type CatalogTable = 'catalog_brands' | 'catalog_materials' | 'catalog_detail_fields' | 'catalog_categories';

export interface CatalogRefreshOutcome {
  account: string;
  /** Rows stored per table; a table whose source could not be fetched is absent and keeps its previous rows. */
  stored: Partial<Record<CatalogTable, number>>;
  /** Entries of a fetched source that could not become rows (`path: reason`); the rest were stored. */
  problems: string[];
  /** One line per source that could not be fetched (after the client's own retries). */
  failures: string[];
}

export interface CatalogRefreshDeps {
  account: string;
  client: CatalogClient;
  sink: Pick<DeliveryStore, 'replaceMirror'>;
  /** Milliseconds since the epoch. */
  clock: () => number;
  /** How its requests are sent (priority, the run's tally). @default none */
  call?: CallOptions;
}

/**
 * Refreshes an account's mirror of the v2 authentication config (brands,
 * materials, detail fields) and supported catalog (categories). The two
 * sources are independent: one that cannot be fetched (the catalog answers
 * 503 while its data is unavailable, and the client has already retried) is
 * reported in `failures` and leaves its tables as they were, so a catalog
 * outage never fails the session sync that runs before it. A failing write to
 * the target is not a fetch failure and is thrown.
 */
export async function refreshCatalog(deps: CatalogRefreshDeps): Promise<CatalogRefreshOutcome> {
  const { account, client, sink } = deps;
  const outcome: CatalogRefreshOutcome = { account, stored: {}, problems: [], failures: [] };

  const config = await fetched(() => client.config(deps.call), 'authentication config', outcome);
  if (config.ok) {
    const rows = normalizeAuthConfig(config.value, account, toIsoMicros(deps.clock() / 1000));
    for (const table of ['catalog_brands', 'catalog_materials', 'catalog_detail_fields'] as const) {
      await sink.replaceMirror(table, account, rows[table]);
      outcome.stored[table] = rows[table].length;
    }
    outcome.problems.push(...rows.problems.map((p) => `authentication config: ${p}`));
  }

  const catalog = await fetched(() => client.catalog(deps.call), 'supported catalog', outcome);
  if (catalog.ok) {
    const rows = normalizeCatalog(catalog.value, account);
    await sink.replaceMirror('catalog_categories', account, rows.catalog_categories);
    outcome.stored.catalog_categories = rows.catalog_categories.length;
    outcome.problems.push(...rows.problems.map((p) => `supported catalog: ${p}`));
  }
  return outcome;
}

async function fetched(
  fetch: () => Promise<unknown>,
  what: string,
  outcome: CatalogRefreshOutcome,
): Promise<{ ok: true; value: unknown } | { ok: false }> {
  try {
    return { ok: true, value: await fetch() };
  } catch (error) {
    // The client's errors carry no token or body (src/api/errors.ts), so the message can be shown as is.
    outcome.failures.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    return { ok: false };
  }
}
