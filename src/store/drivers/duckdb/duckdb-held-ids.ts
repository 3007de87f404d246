import type { Row, SqlExecutor } from '../sql-driver.js';

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
 * 32-bit FNV-1a of `text` from `seed`: two seeds give the two hashes that
 * double hashing spreads into PROBES bit positions.
 */
function fnv1a(text: string, seed: number): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
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
  readonly #bits: Uint32Array;
  readonly #size: number;
  readonly #capacity: number;
  #count = 0;

  /** A filter sized for `capacity` ids (at least MIN_CAPACITY). */
  constructor(capacity: number) {
    this.#capacity = Math.max(MIN_CAPACITY, Math.ceil(capacity));
    this.#size = this.#capacity * BITS_PER_ID;
    this.#bits = new Uint32Array(Math.ceil(this.#size / 32));
  }

  /** Adds `id`; counts it only when it was not (as far as the filter tells) there. */
  add(id: string): void {
    if (!this.#probe(id, true)) this.#count++;
  }

  /** Whether `id` may be held: false only when it certainly is not. */
  mayHold(id: string): boolean {
    return this.#probe(id, false);
  }

  /** Whether all of `id`'s bits are set (before `set` sets them). */
  #probe(id: string, set: boolean): boolean {
    const h1 = fnv1a(id, 0x811c9dc5);
    const h2 = fnv1a(id, 0x5bd1e995) | 1;
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
}

/**
 * The file's HeldIds: one filter of every id any of HELD_ID_TABLES' tables
 * holds rows for, built by one scan of them when a merge first asks (and
 * again, for GROWTH times the ids then, when it holds more ids than it was
 * sized for). The ids a transaction writes join it when the transaction ends;
 * until then they are kept apart by kind, so that a merge asking about the
 * child rows of the sessions it has just inserted is not told "maybe" by their
 * own session rows. One filter, not one per kind: a child row's id (and a version's) is its
 * session's, so a second filter held the same ids again (26 MB each at 4.7M sessions).
 */
export class FileHeldIds {
  #held: HeldIds | null = null;
  /** Ids the transaction under way wrote, per kind of table. */
  readonly #pending: Record<HeldKind, Set<string>> = { sessions: new Set(), children: new Set(), versions: new Set() };

  /**
   * Of `ids`, those the file may hold rows for in tables of `kind`: any id
   * the filter may hold (a row in any of the tables before this
   * transaction), and those this transaction wrote to tables of `kind`.
   */
  async mayHold(tx: SqlExecutor, kind: HeldKind, ids: readonly string[]): Promise<string[]> {
    if (this.#held === null || this.#held.full) {
      // Let go of the full filter before its successor, GROWTH times as large, is built: 38 MB at 8.4M ids, not 63.
      this.#held = null;
      this.#held = await scan(tx);
    }
    const held = this.#held;
    const pending = this.#pending[kind];
    return ids.filter((id) => pending.has(id) || held.mayHold(id));
  }

  /** Rows the driver wrote to `table`, in the transaction under way. */
  wrote(table: string, rows: readonly Row[]): void {
    const kind = heldKindOf(table);
    if (kind !== null) for (const row of rows) this.#pending[kind].add(String(row.service_id));
  }

  /**
   * The transaction ended: what it wrote joins the filter, committed or not
   * (a rolled-back write leaves a "maybe", never a wrong "no").
   */
  settle(): void {
    for (const pending of Object.values(this.#pending)) {
      if (this.#held !== null) for (const id of pending) this.#held.add(id);
      pending.clear();
    }
  }

  /** The file may have changed outside this process (it was attached again): known again at the next question. */
  forget(): void {
    this.#held = null;
  }
}

async function scan(tx: SqlExecutor): Promise<HeldIds> {
  const [row] = await tx.all(
    'SELECT (SELECT count(*) FROM authentications) + (SELECT count(*) FROM fingerprints) AS n',
  );
  const held = new HeldIds(GROWTH * Number(row?.n ?? 0));
  for (const table of Object.values(HELD_ID_TABLES).flat()) {
    // A session's child rows were written together, and a scan mostly meets them one after another: hashed once
    // (6 in 10 rows of session_text_fields follow one of the same session; at 10M sessions a read of the 41M ids
    // and the filter's build took 32.0 s, 30.4 s so).
    let last: unknown;
    await tx.each(`SELECT service_id FROM ${table}`, [], (rows) => {
      for (const { service_id: id } of rows) {
        if (id !== last) held.add(String(id));
        last = id;
      }
    });
  }
  return held;
}
