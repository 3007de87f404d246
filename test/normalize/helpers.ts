import { expect } from 'vitest';
import { isRejectedRow, normalizeItem } from '../../src/normalize/normalize-item.js';
import type {
  ApiVersion,
  NormalizedAuthentication,
  NormalizedFingerprint,
  NormalizedSession,
  ObservationContext,
  RejectedRow,
  Resource,
} from '../../src/normalize/rows.js';
import { OBSERVED_AT } from './fixtures.js';

export function ctx(extra: Partial<ObservationContext> = {}): ObservationContext {
  return { account: 'default', source: 'search', observedAt: OBSERVED_AT, ...extra };
}

export function accepted(
  resource: 'authentications',
  apiVersion: ApiVersion,
  item: unknown,
  context?: ObservationContext,
): NormalizedAuthentication;
export function accepted(
  resource: 'fingerprints',
  apiVersion: ApiVersion,
  item: unknown,
  context?: ObservationContext,
): NormalizedFingerprint;
export function accepted(
  resource: Resource,
  apiVersion: ApiVersion,
  item: unknown,
  context = ctx(),
): NormalizedSession {
  const result = normalizeItem(resource, apiVersion, item, context);
  if (isRejectedRow(result)) expect.fail(`expected a session, got a rejection: ${result.reason}`);
  expect(result.resource).toBe(resource);
  return result;
}

export function rejected(resource: Resource, apiVersion: ApiVersion, item: unknown, context = ctx()): RejectedRow {
  const result = normalizeItem(resource, apiVersion, item, context);
  if (!isRejectedRow(result)) expect.fail(`expected a rejection, got session ${result.row.service_id}`);
  return result;
}
