import type { OnConflict, Row } from '../sql-driver.js';

/**
 * The tables whose rows a HeldIds knows by service_id, by kind: a merge asks
 * whether the session tables hold its sessions, then whether the child
 * tables hold rows of those it has just inserted, and the versions' write
 * whether session_versions holds any of theirs (a backfill's sessions have
 * none: 514 reads of that keyless table, 2.6 s of a 40-account backfill's
 * DuckDB statements, found nothing).
 */
export const HELD_ID_TABLES = {
  sessions: ['authentications', 'fingerprints'],
  children: ['session_text_fields', 'session_images', 'session_warnings'],
  versions: ['session_versions'],
} as const satisfies Record<string, readonly string[]>;

export type HeldKind = keyof typeof HELD_ID_TABLES;

/** The kind of the tables `table` belongs to, or null when HeldIds does not follow it. */
export function heldKindOf(table: string): HeldKind | null {
  for (const [kind, tables] of Object.entries(HELD_ID_TABLES))
    if ((tables as readonly string[]).includes(table)) return kind as HeldKind;
  return null;
}

/**
 * Bits kept per id, and probes per id: a false positive about once in
 * 100,000 lookups (0.5 ** 16.6), so a commit group of 1,600 sessions that are
 * all new finds one that may be stored (and reads the table for it) about
 * once in 60 groups.
 */
const BITS_PER_ID = 24;
const PROBES = 16;
/** Ids a filter is sized for at the least. */
const MIN_CAPACITY = 1 << 16;
/**
 * A filter built by a scan is sized for this many times the ids it found,
 * and built again once it holds more. With twice, a filter of a 10M-session
 * file took 30–60 MB (3 bytes an id); with 1.5, 30–45 MB, for a scan of the
 * ids every half more of the history instead of every doubling.
 */
const GROWTH = 1.5;

/**
 * Where the filter's hashes come from: DuckDB's own `hash()` of a service id,
 * as its high and low 32 bits (duckdb-id-hashes.ts). DuckDB hashes the ids
 * while it scans a table, so a build reads two numbers a row instead of a
 * string a row into JavaScript; the ids a merge asks about are hashed by the
 * same function, in one statement for a commit's questions and writes.
 */
export interface IdHashSource {
  /** Sessions the file holds (its session tables' rows): what a filter built now is sized for. */
  sessions(): Promise<number>;
  /** The hash of the service id of every row of `table`, in the order of the scan. */
  scan(table: string, visit: (high: number, low: number) => void): Promise<void>;
  /** The hash of each of `ids`, in their order. */
  hash(ids: readonly string[]): Promise<{ high: number[]; low: number[] }>;
}

/**
 * The service ids a DuckDB target holds rows for (in its session tables or
 * their child tables), as a Bloom filter: "no" is certain, "maybe" is about
 * once in 100,000 wrong. DuckDB's session tables have no key index
 * (duckdb-keyless.ts), so asking the table whether a commit's sessions are
 * stored reads the whole id column, and a backfill's commits cost more the
 * more it has stored (a commit of 1,600 random ids: 103 ms at 250,000
 * sessions, 264 ms at 1.75M). Asked first, this lets a commit of new sessions
 * skip the read.
 *
 * It is filled by one scan of the tables and then by every row the process
 * writes to them (a rolled-back write leaves a "maybe", never a wrong "no");
 * it is right only while this process alone writes the file, which DuckDB's
 * lock on it holds for the life of the instance.
 */
export class HeldIds {
  readonly #bits: Uint32Array<ArrayBuffer>;
  readonly #size: number;
  readonly #capacity: number;
  #count = 0;

  /** A filter sized for `capacity` ids (at least MIN_CAPACITY). */
  constructor(capacity: number) {
    this.#capacity = Math.max(MIN_CAPACITY, Math.ceil(capacity));
    this.#size = this.#capacity * BITS_PER_ID;
    this.#bits = new Uint32Array(Math.ceil(this.#size / 32));
  }

  /** Adds the id of the hash `high`, `low`; counts it only when it was not (as far as the filter tells) there. */
  add(high: number, low: number): void {
    if (!this.#probe(high, low, true)) this.#count++;
  }

  /** Whether the id of the hash `high`, `low` may be held: false only when it certainly is not. */
  mayHold(high: number, low: number): boolean {
    return this.#probe(high, low, false);
  }

  /** Whether all of the id's bits are set (before `set` sets them): double hashing of the hash's halves. */
  #probe(h1: number, low: number, set: boolean): boolean {
    // Released: every id "may" be held, which is never wrong.
    if (this.#bits.length === 0) return true;
    const h2 = low | 1;
    let all = true;
    for (let i = 0; i < PROBES; i++) {
      const at = ((h1 + Math.imul(i, h2)) >>> 0) % this.#size;
      const mask = 1 << (at & 31);
      if ((this.#bits[at >>> 5]! & mask) !== 0) continue;
      if (!set) return false;
      all = false;
      this.#bits[at >>> 5]! |= mask;
    }
    return all;
  }

  /** Whether the filter holds more ids than it was sized for (its "maybe" goes wrong more often). */
  get full(): boolean {
    return this.#count > this.#capacity;
  }

  /** Distinct ids added, as far as the filter tells. */
  get count(): number {
    return this.#count;
  }

  /**
   * Hands the bits' memory back now, not at a garbage collection. A full
   * filter dropped while its successor, 1.5 times as large, was built could
   * stay resident beside it until V8 collected it (a script that built three
   * filters, each larger, one after another: 292 MB RSS without, 152 with).
   * A released filter says "maybe" of every id.
   */
  release(): void {
    this.#bits.buffer.transfer(0);
  }
}

/**
 * Sessions a process inserts as new, by default, before it builds the filter,
 * and their share of the sessions merges asked about since the counts were
 * last halved (every DECAY_ASKED asked). The filter answers "no" without a
 * read only for sessions that are new: it pays in a backfill, whose sessions
 * all are, and not in a sync, whose merges ask about stored sessions (the
 * refresh's, the pass's day of overlap) and read the table for them anyway.
 * Built at a sync's first merge, it cost an idle sync of a 10M-session file a
 * scan of every table's ids and 40 MB for the rest of the process: 112–116 s
 * at a peak of 382–383 MB with it, 84–99 s at 338–343 MB without
 * (docs/benchmarks.md, "The held-id filter where it pays"). The halving lets a
 * daemon's background backfill, after days of syncs, be judged by its own
 * questions.
 */
export const BUILD_AFTER_NEW = 1_000;
const BUILD_NEW_SHARE = 0.5;
const DECAY_ASKED = 20_000;

/**
 * The file's HeldIds: one filter of every id any of HELD_ID_TABLES' tables
 * holds rows for, built by one scan of them when a merge asks once the
 * process has inserted enough new sessions for it to pay (BUILD_AFTER_NEW;
 * until then every id "may" be held, and the merge reads), and again, for
 * GROWTH times the ids then, when it holds more ids than it was sized for.
 * The ids a transaction writes join it when the transaction ends (hashed at
 * the next question: ending a transaction asks DuckDB nothing); until then
 * they are kept apart by kind, so that a merge asking about the child rows of
 * the sessions it has just inserted is not told "maybe" by their own session
 * rows. One filter, not one per kind: a child row's id (and a version's) is
 * its session's, so a second filter held the same ids again (26 MB each at
 * 4.7M sessions).
 */
export class FileHeldIds {
  readonly #source: IdHashSource;
  readonly #beforeRead: (maybe: number, asked: number) => Promise<void>;
  #held: HeldIds | null = null;
  /** Ids the transaction under way wrote, per kind of table. */
  readonly #pending: Record<HeldKind, Set<string>> = { sessions: new Set(), children: new Set(), versions: new Set() };
  /** Ids of transactions that have ended, not hashed into the filter yet. */
  readonly #settled = new Set<string>();
  /** Hashes of the ids asked about or written since the filter last took in the settled ids. */
  readonly #known = new Map<string, [number, number]>();
  /** New sessions inserted, and sessions asked about, while there is no filter (halved now and then). */
  #fresh = 0;
  #asked = 0;
  readonly #buildAfterNew: number;

  /**
   * @param beforeRead called before mayHold answers with ids the filter may hold (`maybe` of the `asked` it was
   * asked about): the caller reads the table for them next
   * @param buildAfterNew new sessions inserted before the filter is built (BUILD_AFTER_NEW)
   */
  constructor(
    source: IdHashSource,
    beforeRead: (maybe: number, asked: number) => Promise<void> = () => Promise.resolve(),
    buildAfterNew = BUILD_AFTER_NEW,
  ) {
    this.#source = source;
    this.#beforeRead = beforeRead;
    this.#buildAfterNew = buildAfterNew;
  }

  /**
   * Of `ids`, those the file may hold rows for in tables of `kind`: any id
   * the filter may hold (a row in any of the tables before this
   * transaction), and those this transaction wrote to tables of `kind`.
   */
  async mayHold(kind: HeldKind, ids: readonly string[]): Promise<string[]> {
    if (this.#held === null && !this.#worthBuilding()) {
      if (kind === 'sessions') this.#count(0, ids.length);
      return [...ids];
    }
    if (this.#held === null || this.#held.full) {
      // Let go of the full filter before its successor, GROWTH times as large, is built: 38 MB at 8.4M ids, not 63.
      this.#held?.release();
      this.#held = null;
      this.#forgetSettled();
      this.#held = await build(this.#source);
    }
    const held = this.#held;
    if (this.#settled.size > 0) {
      const settled = [...this.#settled];
      for (const [high, low] of await this.#hashes(settled)) held.add(high, low);
      this.#forgetSettled();
    }
    const pending = this.#pending[kind];
    const asked = ids.filter((id) => !pending.has(id));
    const hashes = await this.#hashes(asked);
    const maybe = new Set(asked.filter((_, i) => held.mayHold(...hashes[i]!)));
    if (maybe.size > 0) await this.#beforeRead(maybe.size, asked.length);
    return ids.filter((id) => pending.has(id) || maybe.has(id));
  }

  /**
   * Whether to build the filter now: enough of the sessions asked about were new, and the transaction under way has
   * written nothing yet (a build meets its own rows, which would then be a "maybe" as another kind's).
   */
  #worthBuilding(): boolean {
    if (Object.values(this.#pending).some((ids) => ids.size > 0)) return false;
    return this.#fresh >= this.#buildAfterNew && this.#fresh >= BUILD_NEW_SHARE * this.#asked;
  }

  /** Counts new sessions inserted and sessions asked about, halving both once DECAY_ASKED have been asked. */
  #count(fresh: number, asked: number): void {
    this.#fresh += fresh;
    this.#asked += asked;
    if (this.#asked >= DECAY_ASKED) {
      this.#fresh /= 2;
      this.#asked /= 2;
    }
  }

  /**
   * DuckDB's hash of each of `ids`, asked only for those not known yet: a merge asks about a commit's sessions,
   * then about the same ids' child rows and versions, and writes them; one statement hashes them all.
   */
  async #hashes(ids: readonly string[]): Promise<Array<[number, number]>> {
    const missing = ids.filter((id) => !this.#known.has(id));
    if (missing.length > 0) {
      const { high, low } = await this.#source.hash(missing);
      for (let i = 0; i < missing.length; i++) this.#known.set(missing[i]!, [high[i]!, low[i]!]);
    }
    return ids.map((id) => this.#known.get(id)!);
  }

  /** The ended transactions' ids are in the filter, or the filter is gone: neither they nor their hashes are kept. */
  #forgetSettled(): void {
    this.#settled.clear();
    this.#known.clear();
  }

  /** Rows the driver wrote to `table`, in the transaction under way; `fail`: inserted as new, known to be absent. */
  wrote(table: string, rows: readonly Row[], onConflict: OnConflict): void {
    const kind = heldKindOf(table);
    if (kind === null) return;
    for (const row of rows) this.#pending[kind].add(String(row.service_id));
    if (kind === 'sessions' && onConflict === 'fail' && this.#held === null) this.#count(rows.length, 0);
  }

  /**
   * The transaction ended: what it wrote joins the filter, committed or not
   * (a rolled-back write leaves a "maybe", never a wrong "no").
   */
  settle(): void {
    for (const pending of Object.values(this.#pending)) {
      if (this.#held !== null) for (const id of pending) this.#settled.add(id);
      pending.clear();
    }
    if (this.#held === null) this.#forgetSettled();
  }

  /** The file may have changed outside this process (it was attached again): known again at the next question. */
  forget(): void {
    this.#held?.release();
    this.#held = null;
    this.#forgetSettled();
  }
}

async function build(source: IdHashSource): Promise<HeldIds> {
  const held = new HeldIds(GROWTH * (await source.sessions()));
  for (const table of Object.values(HELD_ID_TABLES).flat()) {
    // A session's child rows were written together, and a scan mostly meets them one after another: added once
    // (6 in 10 rows of session_text_fields follow one of the same session).
    let lastHigh = -1;
    let lastLow = -1;
    await source.scan(table, (high, low) => {
      if (high !== lastHigh || low !== lastLow) held.add(high, low);
      lastHigh = high;
      lastLow = low;
    });
  }
  return held;
}
