import type { CommitResult, PageCommit, PageStore } from '../../store/sink.js';

/** The commits of one fetched page: they go into one transaction together. */
interface Waiting {
  pages: readonly PageCommit[];
  resolve: (results: CommitResult[]) => void;
  reject: (error: unknown) => void;
}

/** Most pages one transaction takes by default: 1,600 v1.4 items at 25 a page. */
export const MAX_PAGES_PER_COMMIT = 64;

/**
 * Group commit. Pages that arrive while a transaction is committing wait and
 * then commit together in the next one, each still with its own checkpoint, so
 * many concurrent windows cost one transaction rather than one each. A page's
 * promise settles only after its transaction committed: the crawler asks for
 * the next page only then (state advances only after the sink committed).
 */
export class CommitQueue {
  readonly #sink: PageStore;
  readonly #maxPages: number;
  #waiting: Waiting[] = [];
  #draining = false;

  /** @param maxPages most pages in one transaction. @default MAX_PAGES_PER_COMMIT */
  constructor(sink: PageStore, maxPages = MAX_PAGES_PER_COMMIT) {
    this.#sink = sink;
    this.#maxPages = maxPages;
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
      this.#waiting.push({ pages, resolve, reject });
      if (!this.#draining) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#waiting.length > 0) {
        const group = this.#take();
        if (group.length === 1) {
          await this.#one(group[0]!);
          continue;
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
      }
    } finally {
      this.#draining = false;
    }
  }

  /** Whole units up to `maxPages` pages (at least one unit, however large). */
  #take(): Waiting[] {
    let pages = 0;
    let n = 0;
    while (n < this.#waiting.length && (n === 0 || pages + this.#waiting[n]!.pages.length <= this.#maxPages)) {
      pages += this.#waiting[n]!.pages.length;
      n++;
    }
    return this.#waiting.splice(0, n);
  }

  async #one(w: Waiting): Promise<void> {
    try {
      w.resolve(w.pages.length === 1 ? [await this.#sink.commitPage(w.pages[0]!)] : await this.#sink.commitPages(w.pages));
    } catch (error) {
      w.reject(error);
    }
  }
}
