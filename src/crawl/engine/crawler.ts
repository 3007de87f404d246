import type { CallOptions, RequestTally } from '../../api/service-client.js';
import type { CrawlConfig } from '../../config/config.js';
import { PAGE_SIZE } from '../../config/constants.js';
import type { Resource } from '../../normalize/rows.js';
import { toIsoMicros } from '../../normalize/time.js';
import type { CrawlStore, PageCommit } from '../../store/sink.js';
import { message, stopsTheRun } from './error-scope.js';
import type { CrawlAccount, CrawlDeps } from './crawl-deps.js';
import { planCut } from './cut-plan.js';
import { afterPage, ItemDensity, pageDensity } from './item-density.js';
import { assignPage, pageCommits } from './page-assignment.js';
import { pageEvents, summed } from './page-events.js';
import type { PassTask } from './planner.js';
import { watchForRoom } from './ramp.js';
import { RoomWatch } from './room-watch.js';
import { RoundTrip } from './round-trip.js';
import { planSpans, spanOver, type Span } from './span.js';
import { splitParts } from './split-parts.js';
import { outlasts } from './straggler.js';
import { StreamCaps } from './stream-caps.js';
import { streamCall } from './stream-priority.js';
import { canSplit, cutCandidates, openStream, passOf, seenBy, unfetched, type Stream } from './stream.js';
import { keyOf } from './window-key.js';
import { requestRange, splitRemainder } from './windows.js';

/** The part of a run's CrawlContext (crawl-context.ts) a crawler uses. */
export interface CrawlerContext extends Pick<
  CrawlDeps,
  'normalize' | 'clock' | 'signal' | 'onEvent' | 'commits' | 'streams'
> {
  sink: Pick<CrawlStore, 'startPass' | 'splitWindow' | 'markWindow'>;
  crawl: Pick<CrawlConfig, 'concurrency' | 'splitAfterPages'>;
  /** The run's own request count: every request of the crawl adds its attempts here. */
  tally: RequestTally;
  /** The run in `sync_runs` whose counts each commit raises. @default none */
  runId?: string | undefined;
}

export interface CrawlerOptions {
  /**
   * Whether a stream may hand windows over to a new one, or be cut in two, when the bucket shows room. Each stream
   * ends in a partial page, so a cut costs a page or so: a crawl whose pages are counted against a budget (a
   * refresh's parts, sized from the sessions stored in them) only starts the spans it was given. @default true
   */
  mayCut?: boolean;
}

export interface CrawlOutcome {
  passes: number;
  pages: number;
  items: number;
  written: number;
  failed: Array<{ resource: Resource; windowStart: number; error: string }>;
  interrupted: boolean;
}

/**
 * Pages windows with as few requests as the bucket allows. Adjacent windows
 * are paged by one request stream (each stream ends in one partial page, not
 * each window), and every page commits together with the checkpoints of the
 * windows it reached, so a kill at any instant costs at most the pages in
 * flight. The shared rate bucket holds the request rate at the limit; a
 * stream is added only when the bucket shows room (capacity went unused), by
 * handing the lower part of the largest unfetched rest to it, so that the
 * streams are as few as keep the bucket full at the latency there is.
 */
export class Crawler {
  readonly #ctx: CrawlerContext;
  readonly #account: CrawlAccount;
  /** How the crawl's requests are sent: at its priority in the account's bucket, counted in its tally. */
  readonly #call: CallOptions & { priority: number };
  readonly #room: RoomWatch;
  readonly #streams = new Set<Stream>();
  /** Items per epoch second seen: what the rest of each stream is expected to cost. */
  readonly #density = new ItemDensity();
  readonly #roundTrip: RoundTrip;
  readonly #caps: StreamCaps;
  #pool: Span[] = [];
  readonly #mayCut: boolean;
  #fatal: unknown = undefined;
  /** The run's signal aborted, from its event: a composite signal's `aborted` walks its sources per read. */
  #aborted = false;
  #finish: () => void = () => undefined;
  #outcome: CrawlOutcome = { passes: 0, pages: 0, items: 0, written: 0, failed: [], interrupted: false };

  /**
   * A crawler of `account` for a run, its requests at `priority` in the
   * account's bucket (higher first), counted in `tally`: the run's, or a
   * part of it (`within` the run's) that wants its own count.
   */
  constructor(
    ctx: CrawlerContext,
    account: CrawlAccount,
    priority: number,
    tally: RequestTally = ctx.tally,
    options: CrawlerOptions = {},
  ) {
    this.#ctx = ctx;
    this.#mayCut = options.mayCut ?? true;
    this.#account = account;
    this.#call = { priority, tally };
    this.#room = new RoomWatch(account.bucket, ctx.clock);
    this.#roundTrip = new RoundTrip(ctx.clock);
    this.#caps = new StreamCaps({
      account: account.name,
      concurrency: ctx.crawl.concurrency,
      budget: ctx.streams,
      room: this.#room,
      roundTrip: this.#roundTrip,
      onEvent: ctx.onEvent,
    });
  }

  /** Runs the passes (newest first) and resolves when all are done, failed, or interrupted. */
  async run(tasks: ReadonlyArray<PassTask & { resource: Resource }>): Promise<CrawlOutcome> {
    this.#pool = planSpans(tasks).sort((a, b) => b.to - a.to);
    const finished = new Promise<void>((resolve) => (this.#finish = resolve));
    const { signal } = this.#ctx;
    const onAbort = () => void (this.#aborted = true);
    this.#aborted = signal.aborted;
    signal.addEventListener('abort', onAbort, { once: true });
    // One stream per resource to begin with; more only as the bucket shows room.
    for (const resource of new Set(this.#pool.map((s) => s.resource))) {
      if (this.#streams.size >= Math.max(1, this.#ctx.crawl.concurrency)) break;
      if (this.#streams.size > 0 && this.#ctx.streams?.mayAdd(this.#account.name) === false) break;
      const at = this.#pool.findIndex((s) => s.resource === resource);
      this.#start(this.#pool.splice(at, 1)[0]!);
    }
    this.#settle();
    const stopWatching = watchForRoom(this.#account.bucket, this.#room.pollMs, {
      answered: () => this.#roundTrip.ms !== null,
      grow: (atSlot) => this.#grow(undefined, false, atSlot).then((grown) => grown === 'grew', this.#fail),
    });
    try {
      await finished;
    } finally {
      stopWatching();
      signal.removeEventListener('abort', onAbort);
    }
    if (this.#fatal !== undefined) throw this.#fatal;
    this.#outcome.interrupted = signal.aborted;
    return this.#outcome;
  }

  /** The run stops with the first such error (the target failing, or the crawl failing to grow); false: not grown. */
  readonly #fail = (error: unknown): false => {
    this.#fatal ??= error;
    return false;
  };

  #now(): string {
    return toIsoMicros(this.#ctx.clock() / 1000);
  }

  #stopped(): boolean {
    return this.#aborted || this.#fatal !== undefined;
  }

  /** Resolves `run` once nothing pages and nothing can start; never leaves queued work without a stream. */
  #settle(): void {
    if (this.#streams.size > 0) return;
    if (this.#pool.length > 0 && !this.#stopped()) {
      this.#start(this.#pool.shift()!);
      return;
    }
    this.#finish();
  }

  #start(span: Span): void {
    const stream = openStream(span, this.#now());
    this.#streams.add(stream);
    this.#ctx.streams?.add(this.#account.name);
    // Capacity left unused before a stream was added is answered by it.
    this.#room.grew();
    void this.#drive(stream);
  }

  async #drive(stream: Stream): Promise<void> {
    try {
      await this.#page(stream);
    } catch (error) {
      await this.#failed(stream, error);
    } finally {
      this.#streams.delete(stream);
      this.#ctx.streams?.remove(this.#account.name);
      // Its requests no longer fill the bucket: the room check decides whether another takes over.
      await this.#grow().catch(this.#fail);
      this.#settle();
    }
  }

  async #page(stream: Stream): Promise<void> {
    const { normalize } = this.#ctx;
    const { name: account, client } = this.#account;
    const apiVersion = client.apiVersion;
    // A new stream's first window is begun by its first page's commit (below), not by a transaction before
    // its first request: at 40 accounts, those waited behind the commit groups that held the target's locks.
    if (stream.started > 0) this.#outcome.passes++;
    let sentAt = NaN; // when the stream's request last left (its token taken): the round trip is timed from it
    const call = streamCall(
      this.#call,
      () => this.#restPages(stream),
      () => (sentAt = this.#ctx.clock()),
    );
    const range = requestRange(stream.from, stream.to);
    const iterator = client.pages(stream.resource, { range, cursor: stream.cursor, limit: PAGE_SIZE }, call);
    const budget = this.#ctx.streams;
    for await (const page of iterator) {
      this.#roundTrip.answered(sentAt);
      // Held from its response to its commit: while the process holds its most, no stream asks for more.
      const release = budget?.hold((this.#roundTrip.leastMs ?? 0) + (this.#account.bucket?.spacingMs ?? 0));
      try {
        const now = this.#now();
        const batch = normalize(
          stream.resource,
          apiVersion,
          page.items,
          { account, source: 'search', observedAt: now, responseWarnings: page.warnings },
          page.itemTexts,
        );
        const asked = stream.current;
        const epochs = batch.sessions.map((s) => s.row.created_epoch);
        const assigned = assignPage(stream.windows, asked, stream.position, epochs, page.nextCursor === null);
        const complete = assigned.doneBefore === stream.windows.length;
        // Claimed before any await: a hand-over meanwhile takes only windows beyond `started`.
        const firstNew = stream.started;
        stream.started = Math.max(stream.started, assigned.through + 1);
        const keys = stream.windows.map((w) => keyOf(w.window));
        // The page itself is not used past here, so its parsed items are not carried through the commit wait
        // (nor by the page generator, cursor-pages.ts): 40 accounts' backfill promoted 319-359 MB to V8's old
        // generation rather than 368.
        const { nextCursor } = page;
        const items = page.items.length;
        const parts = this.#counted(pageCommits(keys, asked, assigned, batch, nextCursor, now));
        // The windows this page reaches first are begun by its own commit, not a transaction each before it.
        for (let i = firstNew; i <= assigned.through; i++) {
          parts[i - asked]!.begin = { ...passOf(stream), windowEnd: stream.windows[i]!.window.windowEnd };
          this.#outcome.passes++;
        }
        const results = await this.#ctx.commits.commitAll(parts);
        release?.();
        const step = stream.position - assigned.position;
        stream.position = assigned.position;
        stream.current = assigned.doneBefore;
        stream.cursor = nextCursor;
        stream.pages++;
        const seen = pageDensity(!stream.answered, epochs, items, step, assigned.position);
        stream.answered = true;
        Object.assign(stream, afterPage(stream, seen));
        this.#density.add(stream.resource, seen.items, seen.seconds);
        this.#outcome.pages++;
        this.#outcome.items += items;
        this.#outcome.written += summed(results, 'written');
        const windows = stream.windows.slice(asked, asked + parts.length).map((w) => w.window);
        const committed = { account, resource: stream.resource, items, covered: step, results };
        for (const event of pageEvents({ ...committed, pagesLeft: this.#pagesLeft(), windows, parts }))
          this.#ctx.onEvent?.(event);
        if (complete || this.#stopped()) return;
        if (this.#room.hasRoom() && (await this.#grow(stream)) === 'stopped') return;
        if (this.#outlasts(stream) && (await this.#grow(stream, true)) === 'stopped') return;
        await budget?.room();
      } finally {
        release?.();
      }
    }
  }

  /** The commits of a page, each carrying the run to count them for (when the crawl belongs to one). */
  #counted(parts: PageCommit[]): PageCommit[] {
    const { runId, tally } = this.#ctx;
    if (runId === undefined) return parts;
    const run = { id: runId, tally };
    return parts.map((part) => ({ ...part, run }));
  }

  /** Whether the stream would page on alone after the bucket could have served everything left. */
  #outlasts(stream: Stream): boolean {
    const bucket = this.#account.bucket;
    const roundTripMs = this.#roundTrip.ms;
    if (!bucket || roundTripMs === null) return false;
    const left = this.#pagesLeft();
    const rest = this.#restPages(stream);
    if (rest === null || left === null) return false;
    return outlasts({ restPages: rest, roundTripMs, pagesLeft: left, spacingMs: bucket.spacingMs }, this.#streams.size);
  }

  /**
   * Pages everything not yet fetched is expected to take, each stream at its own density; null while one is unknown.
   */
  #pagesLeft(): number | null {
    let left = 0;
    for (const s of this.#streams) left += this.#restPages(s) ?? NaN;
    for (const span of this.#pool)
      left += ((span.to - span.from) * (this.#density.of(span.resource) ?? NaN)) / PAGE_SIZE;
    return Number.isFinite(left) ? left : null;
  }

  /** Pages the stream's unfetched rest is expected to take, or null while its density is unknown. */
  #restPages(stream: Stream): number | null {
    const density = this.#density.ofStream(stream);
    return density === null ? null : (unfetched(stream) * density) / PAGE_SIZE;
  }

  /**
   * Adds a stream: a span nobody pages yet, else the lower part of the
   * largest unfetched rest. `boundary` is a stream between two pages: it may
   * also stop and have its current window cut in two ('stopped'). `atSlot`:
   * the ramp saw a slot with nothing waiting, which is the room.
   */
  async #grow(boundary?: Stream, only = false, atSlot = false): Promise<'stopped' | 'grew' | 'none'> {
    if (this.#stopped() || this.#streams.size === 0) return 'none';
    const cap = this.#caps.on(this.#streams.size);
    if (cap !== null) {
      if (!boundary && !atSlot) this.#caps.held(cap, this.#streams.size);
      return 'none';
    }
    // The process's streams are shared by its accounts (stream-budget.ts); a stream of another ends, this one grows.
    if (this.#ctx.streams?.mayAdd(this.#account.name) === false) return 'none';
    if (!boundary && !atSlot && !this.#room.hasRoom()) return 'none';
    if (this.#pool.length > 0 && !only) {
      this.#start(this.#pool.shift()!);
      return 'grew';
    }
    if (!this.#mayCut) return 'none';
    const densityOf = (s: Stream) => this.#density.ofStream(s) ?? this.#density.of(null) ?? 1;
    const candidates =
      only && boundary ? [boundary] : cutCandidates(this.#streams, this.#roundTrip.ms !== null, densityOf);
    for (const stream of candidates) {
      const density = this.#density.ofStream(stream);
      const splittable = stream === boundary && density !== null && canSplit(stream, this.#ctx.crawl.splitAfterPages);
      const { windows, started, current, position } = stream;
      const cut = planCut({ windows, started, current, position, density, canSplit: splittable });
      if (!cut) continue;
      this.#room.grew();
      if (cut.kind === 'hand-over') {
        const handed = stream.windows.splice(cut.at);
        this.#start({ ...spanOver(stream.resource, handed), seen: seenBy(stream) });
        return 'grew';
      }
      await this.#split(stream, cut.at);
      return 'stopped';
    }
    return 'none';
  }

  /** Stops the stream and pages its unfetched rest as two new streams, cut at `at` inside its current window. */
  async #split(stream: Stream, at: number): Promise<void> {
    stream.closing = true;
    const w = stream.windows[stream.current]!;
    const plan = splitRemainder(w.window.windowStart, w.window.windowEnd, stream.position, at);
    if (!plan) throw new Error(`no split of window ${w.window.windowStart} at ${at}`);
    const now = this.#now();
    const { specs, parts } = splitParts(w.window, plan.ranges, now);
    await this.#ctx.sink.splitWindow(keyOf(w.window), plan.keepFrom, specs, now);
    const below = stream.windows.splice(stream.current + 1);
    const [lower, upper] = parts;
    this.#ctx.onEvent?.({
      type: 'window-split',
      account: this.#account.name,
      resource: stream.resource,
      windowStart: w.window.windowStart,
      parts: specs.length,
    });
    const seen = seenBy(stream);
    this.#start({ ...spanOver(stream.resource, [upper!]), seen });
    this.#start({ ...spanOver(stream.resource, [lower!, ...below]), seen });
  }

  /** A window whose first page never committed was never begun: its failed pass is recorded as begun first. */
  async #recordFailed(stream: Stream, window: Stream['windows'][number]['window'], text: string): Promise<void> {
    if (stream.current >= stream.started) {
      await this.#ctx.sink.startPass(keyOf(window), passOf(stream));
      this.#outcome.passes++;
    }
    await this.#ctx.sink.markWindow(keyOf(window), 'failed', text, this.#now());
  }

  /** A failed window is recorded; the windows below it are paged by another stream. */
  async #failed(stream: Stream, error: unknown): Promise<void> {
    if (stopsTheRun(error)) return void this.#fail(error);
    if (this.#stopped()) return;
    const text = message(error);
    const failed = stream.windows[stream.current];
    if (failed) {
      const { window } = failed;
      this.#outcome.failed.push({ resource: stream.resource, windowStart: window.windowStart, error: text });
      // Failing to record a failed window is the target failing: that stops the run.
      await this.#recordFailed(stream, window, text).catch(this.#fail);
      this.#ctx.onEvent?.({
        type: 'window-failed',
        account: this.#account.name,
        resource: stream.resource,
        windowStart: window.windowStart,
        error: text,
      });
    }
    const rest = stream.windows.slice(stream.current + 1);
    if (rest.length > 0) this.#pool.push(spanOver(stream.resource, rest));
  }
}
