/** How the status page colours a window of `sync_windows`. */
export type WindowState = 'done' | 'sealed' | 'pending' | 'running' | 'failed' | 'reopened';

const STORED: ReadonlySet<string> = new Set(['done', 'sealed', 'pending', 'running', 'failed']);

/**
 * A window's state as the page shows it: as stored, except that a pending
 * window a complete pass once covered (it has a `synced_to`) was reopened
 * (`reset`, `verify --repair`), not never fetched.
 */
export function windowState(status: string, syncedTo: number | null): WindowState {
  if (status === 'pending' && syncedTo !== null) return 'reopened';
  return STORED.has(status) ? (status as WindowState) : 'pending';
}
