import { RESOURCES as RESOURCE_NAMES, type ResourceName } from './resources.js';
import { table, type TableDef } from './schema.js';

export const RESOURCES: readonly ResourceName[] = RESOURCE_NAMES;

/** The table of a resource's sessions; its name reaches SQL text, so anything else is refused. */
export function sessionTable(resource: ResourceName): TableDef {
  if (!RESOURCES.includes(resource)) throw new Error(`unknown resource ${String(resource)}`);
  return table(resource);
}
