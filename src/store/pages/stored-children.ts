import { isRejectedRow, normalizeItem } from '../../normalize/normalize-item.js';
import type { ImageRow, NormalizedSession, Resource, TextFieldRow } from '../../normalize/rows.js';
import { isApiVersion } from '../../config/constants.js';

/** The child kinds an item's own text decides alone: warnings also come of the response and the time of seeing. */
export const ITEM_CHILD_KINDS = ['session_text_fields', 'session_images'] as const;

export type ItemChildKind = (typeof ITEM_CHILD_KINDS)[number];

/** What the merge knows of the stored item: its text, interface and account. */
export interface StoredItem {
  raw: string;
  apiVersion: string;
  account: string;
}

/**
 * The session the stored item's text gives today, for its child rows: null
 * when the text no longer reads as an item of an interface ivsync knows (cut
 * to fit a bound, or refused), and the merge then replaces the stored rows
 * as it would have without it.
 */
export function storedSession(resource: Resource, stored: StoredItem): NormalizedSession | null {
  const apiVersion = stored.apiVersion;
  if (!isApiVersion(apiVersion)) return null;
  let item: unknown;
  try {
    item = JSON.parse(stored.raw);
  } catch {
    return null;
  }
  // The time and source only date warnings, which are not compared.
  const ctx = { account: stored.account, source: 'search', observedAt: '1970-01-01T00:00:00.000000Z' } as const;
  const session = normalizeItem(resource, apiVersion, item, ctx, stored.raw);
  return isRejectedRow(session) ? null : session;
}

/** Whether two observations' rows of one child kind are the same rows, in the same order. */
export function sameChildRows(
  a: readonly (TextFieldRow | ImageRow)[],
  b: readonly (TextFieldRow | ImageRow)[],
): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Record<string, unknown>;
    const y = b[i] as Record<string, unknown>;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const key of keys) if (x[key] !== y[key]) return false;
  }
  return true;
}
