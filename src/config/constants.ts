/**
 * Facts of the service and of the crawl that every stage shares. Declared here,
 * apart from config loading, so that the api client, the planner and the crawler
 * can import them without pulling in the loader (zod, yaml, the file system).
 */

/** The interface versions the service offers (api-spec "Versions"). */
export const API_VERSIONS = Object.freeze(['1.4', '2'] as const);

export type ApiVersion = (typeof API_VERSIONS)[number];

/**
 * Where the config file is looked for when neither --config nor IVS_CONFIG
 * names one, in this order: the JSON file the contract names first, then the
 * YAML file `ivsync init` writes.
 */
export const DEFAULT_CONFIG_FILES = Object.freeze([
  './config/ivsync.json',
  './config/ivsync.yaml',
  './config/ivsync.yml',
]);

/** The searchable resources, also the names of their tables. */
export { RESOURCES, isResourceName, type ResourceName } from '../schema/resources.js';

/**
 * Items per search page: the maximum of both interfaces (v2 would default to
 * 10). The planner also counts a window's cost in pages of this size.
 */
export const PAGE_SIZE = 25;

/**
 * Request priorities inside one account's bucket: fresh data first, then
 * refreshes of non-final sessions, then long backfills, so that a year-long
 * backfill never makes the incremental data stale.
 */
export const PRIORITY = Object.freeze({ incremental: 3, refresh: 2, backfill: 1 } as const);

export function isApiVersion(value: unknown): value is ApiVersion {
  return (API_VERSIONS as readonly unknown[]).includes(value);
}
