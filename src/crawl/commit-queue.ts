import type { CommitResult, PageCommit, Sink } from '../store/sink.js';

interface Waiting {
  page: PageCommit;
  resolve: (result: CommitResult) => void;
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
  readonly #sink: Pick<Sink, 'commitPages' | 'commitPage'>;
  readonly #maxPages: number;
  #waiting: Waiting[] = [];
  #draining = false;

  /** @param maxPages most pages in one transaction. @default MAX_PAGES_PER_COMMIT */
  constructor(sink: Pick<Sink, 'commitPages' | 'commitPage'>, maxPages = MAX_PAGES_PER_COMMIT) {
    this.#sink = sink;
    this.#maxPages = maxPages;
  }

  commit(page: PageCommit): Promise<CommitResult> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ page, resolve, reject });
      if (!this.#draining) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#waiting.length > 0) {
        const group = this.#waiting.splice(0, this.#maxPages);
        if (group.length === 1) {
          await this.#one(group[0]!);
          continue;
        }
        try {
          const results = await this.#sink.commitPages(group.map((w) => w.page));
          group.forEach((w, i) => w.resolve(results[i]!));
        } catch {
          // One bad page must not fail its neighbours: commit them one by one.
          for (const w of group) await this.#one(w);
        }
      }
    } finally {
      this.#draining = false;
    }
  }

  async #one(w: Waiting): Promise<void> {
    try {
      w.resolve(await this.#sink.commitPage(w.page));
    } catch (error) {
      w.reject(error);
    }
  }
}
