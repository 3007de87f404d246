import type { NormalizedSession, RejectedRow } from '../../normalize/rows.js';
import { advanceCheckpoints, checkpointAdvances } from '../windows/checkpoint-advance.js';
import { commitKeepingAside } from './refused-items.js';
import { keepNewestCopies } from './page-duplicates.js';
import { countOutcomes, mergeSessions, probeBatch, writeRejected } from './session-merge.js';
import type { CommitResult, PageCommit, PageStore } from '../sink.js';
import type { SqlDriver, SqlExecutor } from '../drivers/sql-driver.js';

/** The crawl's pages: their sessions, rejected items and checkpoints, committed together. */
export class SqlPageStore implements PageStore {
  readonly #driver: SqlDriver;

  constructor(driver: SqlDriver) {
    this.#driver = driver;
  }

  /**
   * One page, and the only place a page is split: when the target refuses a
   * row, the page commits without the refused items, which are kept aside
   * (see refused-items.ts). A group that fails is committed again page by
   * page (crawl/commit-queue.ts), so a refused item reaches this.
   */
  async commitPage(page: PageCommit): Promise<CommitResult> {
    return commitKeepingAside(
      keepNewestCopies(page.batch),
      async (batch) => (await this.commitPages([{ ...page, batch }]))[0]!,
      (batch) => probeBatch(this.#driver, batch),
    );
  }

  async commitPages(given: readonly PageCommit[]): Promise<CommitResult[]> {
    if (given.length === 0) return [];
    // A session a page holds twice is decided within the page (see page-duplicates.ts).
    const pages = given.map((page) => ({ ...page, batch: keepNewestCopies(page.batch) }));
    return this.#driver.transaction(async (tx) => {
      const sessions: NormalizedSession[] = [];
      const rejected: RejectedRow[] = [];
      for (const page of pages) {
        sessions.push(...page.batch.sessions);
        rejected.push(...page.batch.rejected);
      }
      // The windows' checkpoints are read, decided on and written below, and the sessions merged: all in one call.
      await tx.lock({ account: pages.map((page) => page.key.account), session: sessions.map((s) => s.row.service_id) });
      // One merge for the whole group: sessions are decided in page order, as
      // if committed one by one, but read and written in bulk. Missing
      // detection runs after the group's merge, so a session that a later
      // page of the group sees is never marked (one by one, it would be
      // marked and cleared again): same rows, a smaller `missing` count.
      const { outcomes } = await mergeSessions(tx, sessions);
      await writeRejected(tx, rejected);
      const results: CommitResult[] = [];
      let at = 0;
      for (const page of pages) {
        const own = outcomes.slice(at, at + page.batch.sessions.length);
        at += page.batch.sessions.length;
        results.push({ ...countOutcomes(own), rejected: page.batch.rejected.length, missing: 0 });
      }
      // A pass's missing sessions belong to the page that completed it.
      const advances = checkpointAdvances(pages);
      const missing = await advanceCheckpoints(tx, advances);
      for (const [i, advance] of advances.entries()) results[advance.lastPage]!.missing += missing[i]!;
      await countForRuns(tx, pages, results);
      return results;
    });
  }
}

/**
 * Adds what the pages wrote to the `sync_runs` row of the run that fetched
 * them, and raises its `requests` to the run's tally: in the transaction of
 * the pages, so the row counts exactly what was committed, whenever the run
 * ends (a run that dies is relabelled `abandoned` with these counts).
 */
async function countForRuns(
  tx: SqlExecutor,
  pages: readonly PageCommit[],
  results: readonly CommitResult[],
): Promise<void> {
  const runs = new Map<string, { written: number; requests: number }>();
  for (const [i, page] of pages.entries()) {
    if (page.run === undefined) continue;
    const seen = runs.get(page.run.id) ?? { written: 0, requests: 0 };
    const written = seen.written + results[i]!.written;
    runs.set(page.run.id, { written, requests: Math.max(seen.requests, page.run.tally.requests) });
  }
  for (const [id, count] of runs) {
    await tx.run(
      'UPDATE sync_runs SET items_written = items_written + ?, ' +
        "requests = CASE WHEN requests < ? THEN ? ELSE requests END WHERE id = ? AND status = 'running'",
      [count.written, count.requests, count.requests, id],
    );
  }
}
