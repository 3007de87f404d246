import type { Resource } from '../../normalize/rows.js';
import type { CommitResult } from '../../store/records.js';
import type { CrawlEvent } from './crawl-deps.js';

/** A committed page as its events tell it. */
export interface CommittedPage {
  account: string;
  resource: Resource;
  items: number;
  /** Epoch seconds the page moved the stream down. */
  covered: number;
  pagesLeft: number | null;
  /** The windows the page was committed to, in the order of `parts` and `results`. */
  windows: ReadonlyArray<{ windowStart: number; windowEnd: number }>;
  parts: ReadonlyArray<{ done: boolean }>;
  results: readonly CommitResult[];
}

/** The sum of one count over a page's commits. */
export function summed(results: readonly CommitResult[], field: 'written' | 'rejected' | 'stale'): number {
  return results.reduce((n, r) => n + r[field], 0);
}

/** A page's events: its counts, then a `pass-done` for each window whose pass it completed. */
export function pageEvents(page: CommittedPage): CrawlEvent[] {
  const { account, resource, results } = page;
  const events: CrawlEvent[] = [
    {
      type: 'page',
      account,
      resource,
      items: page.items,
      rejected: summed(results, 'rejected'),
      written: summed(results, 'written'),
      stale: summed(results, 'stale'),
      covered: page.covered,
      pagesLeft: page.pagesLeft,
    },
  ];
  for (const [i, part] of page.parts.entries()) {
    if (!part.done) continue;
    const { windowStart, windowEnd } = page.windows[i]!;
    events.push({ type: 'pass-done', account, resource, windowStart, windowEnd, missing: results[i]!.missing });
  }
  return events;
}
