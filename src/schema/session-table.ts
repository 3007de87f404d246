import { RESOURCES as RESOURCE_NAMES } from '../config/constants.js';
import type { Resource } from '../normalize/rows.js';
import { table, type TableDef } from './schema.js';

export const RESOURCES: readonly Resource[] = RESOURCE_NAMES;

/** The table of a resource's sessions; its name reaches SQL text, so anything else is refused. */
export function sessionTable(resource: Resource): TableDef {
  if (!RESOURCES.includes(resource)) throw new Error(`unknown resource ${String(resource)}`);
  return table(resource);
}
