import type { WindowState } from '../../src/store/sink.js';

/** A window of the default account's authentications, never paged unless `patch` says otherwise. */
export function windowState(windowStart: number, windowEnd: number, patch: Partial<WindowState> = {}): WindowState {
  return {
    account: 'default',
    resource: 'authentications',
    apiVersion: '1.4',
    windowStart,
    windowEnd,
    status: 'pending',
    cursor: null,
    pages: 0,
    items: 0,
    attempts: 0,
    error: null,
    updatedAt: '2026-01-01T00:00:00.000000Z',
    passFrom: null,
    passTo: null,
    passStartedAt: null,
    syncedTo: null,
    ...patch,
  };
}
