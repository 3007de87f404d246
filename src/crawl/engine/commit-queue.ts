import type { CommitResult, PageCommit, PageStore } from '../../store/sink.js';
import { groupWaitMs, nextArrivalMs } from './group-wait.js';

/** The commits of one fetched page, one per window it holds items of: they go into one transaction together. */
interface Waiting {
  pages: readonly PageCommit[];
  resolve: (results: CommitResult[]) => void;
  reject: (error: unknown) => void;
}

/**
 * Most fetched pages one transaction takes by default: 1,600 v1.4 items at 25
 * a page. The process may hold twice as many (HELD_PAGES, stream-budget.ts):
 * the next group's pages come in while one commits. A page is one
 * `commitAll` however many windows it spans: counted by its windows' commits,
 * a sparse history's groups (a page over two to four windows) held 16 to 32
 * pages, and forty accounts' backfill of 4,000 pages into SQLite made
 * 600,000-620,000 write calls (the index pages each transaction rewrites, in
 * the WAL and then in the file); counted by page, 490,000-520,000
 * (docs/benchmarks.md).
 */
export const MAX_PAGES_PER_COMMIT = 64;

/**
 * Least time between the starts of two transactions, by default, when pages
 * arrive fast (see group-wait.ts). A commit into SQLite is synchronous, so no
 * response arrives while it runs: without a pause every page committed alone.
 * A page of 25 sessions then dirtied about a hundred 16 KiB index pages, and
 * its WAL was copied back into the file again and again: a 40k-session
 * backfill at 2,000 rps took 1,882 transactions and 332 WAL checkpoints for
 * 1,638 pages, at 243 ms of CPU per 1,000 items. With 20 ms: 1,229 and 211,
 * 226 ms; 50 ms: 550 and 111, 195 ms; 100 ms: 426 and 78, 163 ms; 200 ms: 302
 * and 39, 156 ms. A page waits at most this long.
 */
export const COMMIT_GAP_MS = 100;

export interface CommitQueueOptions {
  /**
   * Most fetched pages (`commitAll` calls) in one transaction; a page's commits are never split.
   * @default MAX_PAGES_PER_COMMIT
   */
  maxPages?: number;
  /**
   * Least ms between the starts of two transactions while pages arrive fast; a page waits at most this long.
   * @default COMMIT_GAP_MS
   */
  gapMs?: number;
  /** A monotonic clock in ms. @default performance.now */
  now?: () => number;
  /**
   * The request streams of the process that may bring a page now (StreamBudget.asking: open, and not
   * waiting for room): a group whose pages are every such stream's starts at once, as no page can join it.
   * @default not known: the gap alone decides
   */
  openStreams?: () => number;
}

/**
 * Group commit. Pages that arrive while a transaction is committing, or
 * (while they come fast) within `gapMs` of the previous one's start, wait and
 * then commit together, each still with its own checkpoint, so many concurrent
 * windows cost one transaction rather than one each. A page's promise settles only after its
 * transaction committed: the crawler asks for the next page only then (state
 * advances only after the sink committed), so a kill loses only pages that
 * were never acknowledged and are fetched again.
 */
export class CommitQueue {
  readonly #sink: PageStore;
  readonly #maxPages: number;
  readonly #gapMs: number;
  readonly #now: () => number;
  readonly #openStreams: (() => number) | undefined;
  /** The fetched pages waiting, in arrival order. */
  #waiting: Waiting[] = [];
  #draining = false;
  #timer: NodeJS.Timeout | null = null;
  /** When the last transaction started. */
  #lastStart = Number.NEGATIVE_INFINITY;
  /** When pages last arrived, and the mean ms between arrivals. */
  #lastArrival: number | null = null;
  #arrivalMs: number | null = null;

  constructor(sink: PageStore, options: CommitQueueOptions = {}) {
    this.#sink = sink;
    this.#maxPages = options.maxPages ?? MAX_PAGES_PER_COMMIT;
    this.#gapMs = options.gapMs ?? COMMIT_GAP_MS;
    this.#now = options.now ?? (() => performance.now());
    this.#openStreams = options.openStreams;
  }

  async commit(page: PageCommit): Promise<CommitResult> {
    const [result] = await this.commitAll([page]);
    return result!;
  }

  /**
   * Commits `pages` in one transaction, never split between two: a page that
   * held items of several windows advances all their checkpoints or none.
   */
  commitAll(pages: readonly PageCommit[]): Promise<CommitResult[]> {
    if (pages.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      const now = this.#now();
      if (this.#lastArrival !== null) this.#arrivalMs = nextArrivalMs(this.#arrivalMs, now - this.#lastArrival);
      this.#lastArrival = now;
      this.#waiting.push({ pages, resolve, reject });
      this.#schedule();
    });
  }

  /** Starts the next transaction now, or after the wait groupWaitMs decides. */
  #schedule(): void {
    if (this.#draining || this.#waiting.length === 0) return;
    const wait = groupWaitMs({
      now: this.#now(),
      lastStart: this.#lastStart,
      gapMs: this.#gapMs,
      waitingPages: this.#waiting.length,
      maxPages: this.#maxPages,
      arrivalMs: this.#arrivalMs,
      ...(this.#openStreams ? { openStreams: this.#openStreams() } : {}),
    });
    if (wait <= 0) {
      if (this.#timer !== null) clearTimeout(this.#timer);
      this.#timer = null;
      void this.#drain();
    } else {
      this.#timer ??= setTimeout(() => {
        this.#timer = null;
        this.#schedule();
      }, wait);
    }
  }

  /** Commits one group, then schedules the next. */
  async #drain(): Promise<void> {
    this.#draining = true;
    this.#lastStart = this.#now();
    try {
      const group = this.#take();
      if (group.length === 1) {
        await this.#one(group[0]!);
        return;
      }
      try {
        const results = await this.#sink.commitPages(group.flatMap((w) => w.pages));
        let at = 0;
        for (const w of group) {
          w.resolve(results.slice(at, at + w.pages.length));
          at += w.pages.length;
        }
      } catch {
        // One bad page must not fail its neighbours: commit them one by one.
        for (const w of group) await this.#one(w);
      }
    } finally {
      this.#draining = false;
      this.#schedule();
    }
  }

  /** The first `maxPages` fetched pages waiting. */
  #take(): Waiting[] {
    return this.#waiting.splice(0, this.#maxPages);
  }

  async #one(w: Waiting): Promise<void> {
    try {
      w.resolve(
        w.pages.length === 1 ? [await this.#sink.commitPage(w.pages[0]!)] : await this.#sink.commitPages(w.pages),
      );
    } catch (error) {
      w.reject(error);
    }
  }
}
