/**
 * The searchable resources of the service; each is also the name of the table
 * its sessions are stored in (session-table.ts), which is why the list lives
 * with the schema. config/constants.ts hands it on to the stages above.
 */
export const RESOURCES = Object.freeze(['authentications', 'fingerprints'] as const);

export type ResourceName = (typeof RESOURCES)[number];

export function isResourceName(value: unknown): value is ResourceName {
  return (RESOURCES as readonly unknown[]).includes(value);
}
