import type { ApiVersion, Resource } from '../normalize/rows.js';
import { toIsoMicros } from '../normalize/time.js';
import type { Sink, WindowKey, WindowState } from '../store/sink.js';
import { CommitQueue } from './commit-queue.js';
import type { CrawlClient, CrawlEvent, Normalize } from './crawl-deps.js';
import type { PassTask } from './planner.js';
import { requestRange, splitRemainder } from './windows.js';

export interface CrawlerOptions {
  account: string;
  apiVersion: ApiVersion;
  /** Windows paged at once. @default 24 */
  concurrency: number;
  /** A window still paging after this many pages is split when workers are idle. @default 4 */
  splitAfterPages: number;
  /** Priority of this crawl's requests in the shared bucket (higher first). @default 0 */
  priority?: number;
}

export interface CrawlerDeps {
  client: CrawlClient;
  sink: Sink;
  normalize: Normalize;
  /** Milliseconds since the epoch. */
  clock: () => number;
  signal: AbortSignal;
  onEvent?: (event: CrawlEvent) => void;
  /** Shared by the crawls of one target so their pages commit together. */
  commits?: CommitQueue;
}

export interface CrawlOutcome {
  passes: number;
  pages: number;
  items: number;
  written: number;
  failed: Array<{ resource: Resource; windowStart: number; error: string }>;
  interrupted: boolean;
}

interface Task extends PassTask {
  resource: Resource;
}

/** Errors that say the whole run is wrong (bad token, bad request, no service at the base URL), not one window. */
function isFatal(error: unknown): boolean {
  const status = (error as { status?: unknown }).status;
  const code = (error as { code?: unknown }).code;
  return status === 400 || status === 401 || code === 'AUTH_REJECTED' || code === 'SERVICE_UNREACHABLE';
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Pages windows concurrently. Each worker runs one pass at a time and commits
 * every page together with its window's checkpoint before asking for the next,
 * so a kill at any instant costs at most the pages in flight. The shared rate
 * bucket, not the worker count, holds the request rate at the limit; the
 * worker count only has to be large enough to keep the bucket full at the
 * highest latency.
 */
export class Crawler {
  readonly #deps: CrawlerDeps;
  readonly #options: CrawlerOptions;
  readonly #commits: CommitQueue;
  #queue: Task[] = [];
  #idle = 0;
  #fatal: unknown = undefined;
  #outcome: CrawlOutcome = { passes: 0, pages: 0, items: 0, written: 0, failed: [], interrupted: false };

  constructor(deps: CrawlerDeps, options: CrawlerOptions) {
    this.#deps = deps;
    this.#options = options;
    this.#commits = deps.commits ?? new CommitQueue(deps.sink);
  }

  /** Runs the passes (newest windows first) and resolves when all are done, failed, or interrupted. */
  async run(tasks: ReadonlyArray<PassTask & { resource: Resource }>): Promise<CrawlOutcome> {
    this.#queue = [...tasks].sort((a, b) => b.window.windowStart - a.window.windowStart);
    // Workers beyond the initial tasks wait for splits of dense windows.
    const count = Math.max(1, this.#options.concurrency);
    await Promise.all(Array.from({ length: count }, () => this.#worker()));
    if (this.#fatal !== undefined) throw this.#fatal;
    this.#outcome.interrupted = this.#deps.signal.aborted;
    return this.#outcome;
  }

  #now(): string {
    return toIsoMicros(this.#deps.clock() / 1000);
  }

  async #worker(): Promise<void> {
    for (;;) {
      if (this.#stopped()) return;
      const task = this.#queue.shift();
      if (!task) {
        // Stay available while others page: a dense window may be split for us.
        if (this.#busy === 0) return;
        this.#idle++;
        await new Promise<void>((resolve) => this.#wakers.push(resolve));
        this.#idle--;
        continue;
      }
      this.#busy++;
      try {
        await this.#pass(task);
      } catch (error) {
        if (isFatal(error)) {
          this.#fatal ??= error;
        } else if (!this.#stopped()) {
          const text = message(error);
          this.#outcome.failed.push({ resource: task.resource, windowStart: task.window.windowStart, error: text });
          await this.#deps.sink.markWindow(key(task), 'failed', text, this.#now()).catch(() => undefined);
          this.#deps.onEvent?.({ type: 'window-failed', account: this.#options.account, resource: task.resource, windowStart: task.window.windowStart, error: text });
        }
      } finally {
        this.#busy--;
        this.#wake();
      }
    }
  }

  #busy = 0;
  #wakers: Array<() => void> = [];

  #wake(): void {
    for (const wake of this.#wakers.splice(0)) wake();
  }

  #stopped(): boolean {
    return this.#deps.signal.aborted || this.#fatal !== undefined;
  }

  async #pass(task: Task): Promise<void> {
    const { client, sink, normalize } = this.#deps;
    const { account, apiVersion } = this.#options;
    const windowKey = key(task);
    if (!task.resume) {
      await sink.startPass(windowKey, { passFrom: task.passFrom, passTo: task.passTo, startedAt: this.#now() });
    }
    this.#outcome.passes++;
    const full = task.passFrom === task.window.windowStart;
    let pages = task.resume ? task.window.pages : 0;
    let covered = task.passTo;
    const iterator = client.pages(
      task.resource,
      { range: requestRange(task.passFrom, task.passTo), cursor: task.resume ? task.window.cursor : null, limit: 25 },
      { priority: this.#options.priority ?? 0 },
    );
    for await (const page of iterator) {
      const now = this.#now();
      const batch = normalize(
        task.resource,
        apiVersion,
        page.items,
        { account, source: 'search', observedAt: now, responseWarnings: page.warnings },
        page.itemTexts,
      );
      const done = page.nextCursor === null;
      const result = await this.#commits.commit({ key: windowKey, batch, nextCursor: page.nextCursor, done, now });
      pages++;
      let oldest = covered;
      for (const s of batch.sessions) {
        const epoch = s.row.created_epoch;
        if (epoch !== null && epoch < oldest) oldest = epoch;
      }
      const step = done ? covered - task.passFrom : Math.max(0, covered - Math.max(oldest, task.passFrom));
      covered -= step;
      this.#outcome.pages++;
      this.#outcome.items += page.items.length;
      this.#outcome.written += result.written;
      this.#deps.onEvent?.({
        type: 'page',
        account,
        resource: task.resource,
        items: page.items.length,
        rejected: result.rejected,
        written: result.written,
        stale: result.stale,
        covered: step,
      });
      if (done) {
        this.#deps.onEvent?.({ type: 'pass-done', account, resource: task.resource, windowStart: task.window.windowStart, windowEnd: task.window.windowEnd, missing: result.missing });
        return;
      }
      if (this.#stopped()) return;
      if (full && pages >= this.#options.splitAfterPages && this.#queue.length === 0 && this.#idle > 0) {
        if (await this.#split(task, oldest, now)) return;
      }
    }
  }

  /** Hands the unfetched rest of a dense window to idle workers. */
  async #split(task: Task, oldest: number, now: string): Promise<boolean> {
    const plan = splitRemainder(task.window.windowStart, task.window.windowEnd, oldest, this.#idle + 1);
    if (!plan) return false;
    const parts = plan.ranges.map(([a, b]) => ({ ...key(task), windowStart: a, windowEnd: b }));
    await this.#deps.sink.splitWindow(key(task), plan.keepFrom, parts, now);
    for (const part of parts) {
      const window: WindowState = {
        ...part,
        status: 'pending',
        cursor: null,
        pages: 0,
        items: 0,
        attempts: 0,
        error: null,
        updatedAt: now,
        passFrom: null,
        passTo: null,
        passStartedAt: null,
        syncedTo: null,
      };
      this.#queue.push({ window, resource: task.resource, passFrom: part.windowStart, passTo: Math.min(part.windowEnd, task.passTo), resume: false });
    }
    this.#queue.sort((a, b) => b.window.windowStart - a.window.windowStart);
    this.#deps.onEvent?.({ type: 'window-split', account: this.#options.account, resource: task.resource, windowStart: task.window.windowStart, parts: parts.length });
    this.#wake();
    return true;
  }
}

function key(task: Task): WindowKey {
  return {
    account: task.window.account,
    resource: task.window.resource,
    apiVersion: task.window.apiVersion,
    windowStart: task.window.windowStart,
  };
}
