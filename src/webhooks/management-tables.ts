import type { DomainRow, WebhookRow } from '../normalize/rows.js';

/** `key=v1,v2; key=v` from the filters JSON of a webhook row. */
export function describeFilters(filtersJson: string | null): string {
  if (filtersJson === null) return '-';
  let filters: unknown;
  try {
    filters = JSON.parse(filtersJson);
  } catch {
    return filtersJson;
  }
  if (!Array.isArray(filters)) return filtersJson;
  return filters
    .map((f: unknown) => {
      if (typeof f !== 'object' || f === null) return JSON.stringify(f);
      const { key, value, values } = f as Record<string, unknown>;
      const shown = Array.isArray(values) ? values.map(String).join(',') : String(value);
      return `${String(key)}=${shown}`;
    })
    .join('; ');
}

export const WEBHOOK_COLUMNS = ['webhook', 'channel', 'endpoint', 'filters', 'created', 'active'] as const;

export function webhookCells(row: WebhookRow): unknown[] {
  return [
    row.webhook_uuid,
    row.channel,
    row.endpoint_url,
    describeFilters(row.filters),
    row.created_at,
    row.active ? 'yes' : 'no',
  ];
}

export const DOMAIN_COLUMNS = ['domain', 'name', 'owner', 'registered'] as const;

export function domainCells(row: DomainRow): unknown[] {
  return [row.domain_uuid, row.domain_name, row.username ?? row.organization_name, row.created_at];
}
