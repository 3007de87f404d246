import type { Cursor } from '../../api/cursor.js';
import type { PageCommit, PassBegin, WindowKey } from '../sink.js';

/** What a run of committed pages does to one window's checkpoint. */
export interface CheckpointAdvance {
  key: WindowKey;
  pages: number;
  items: number;
  /** The cursor of the run's last page. */
  cursor: Cursor | null;
  /** Whether the run's last page completed the pass. */
  done: boolean;
  now: string;
  /** Index, in the group, of the run's last page. */
  lastPage: number;
  /** The pass the run's first page begins, when it does (PageCommit.begin). */
  begin?: PassBegin;
}

/**
 * Folds a group commit's pages into one advance per window: consecutive pages
 * of a window add up (pages, items) and the last one sets cursor, time and
 * completion, exactly as committing them one by one would. A page that
 * completes a pass closes its window's run, so a later page of the same
 * window starts a new one, as does a page that begins a pass.
 */
export function checkpointAdvances(pages: readonly PageCommit[]): CheckpointAdvance[] {
  const out: CheckpointAdvance[] = [];
  const open = new Map<string, CheckpointAdvance>();
  for (const [index, page] of pages.entries()) {
    const id = `${page.key.account}\u0000${page.key.resource}\u0000${page.key.apiVersion}\u0000${page.key.windowStart}`;
    const items = page.batch.sessions.length + page.batch.rejected.length;
    let advance = open.get(id);
    // A page that begins a pass starts a run of its own: the window's counts start again with it.
    if (advance === undefined || page.begin !== undefined) {
      advance = { key: page.key, pages: 0, items: 0, cursor: null, done: false, now: page.now, lastPage: index };
      if (page.begin !== undefined) advance.begin = page.begin;
      out.push(advance);
      open.set(id, advance);
    }
    advance.pages += page.pages ?? 1;
    advance.items += items;
    advance.cursor = page.done ? null : page.nextCursor;
    advance.done = page.done;
    advance.now = page.now;
    advance.lastPage = index;
    if (page.done) open.delete(id);
  }
  return out;
}
