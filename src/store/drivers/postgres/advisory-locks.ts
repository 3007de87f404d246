import type { Knex } from 'knex';
import type { LockKeys } from '../sql-driver.js';
import { arrayLiteral } from './array-literal.js';

/**
 * Most keys a transaction locks one by one; past this it locks the whole
 * schema instead (and so every key it would lock later). Advisory locks live
 * in the server's shared lock table, sized for `max_locks_per_transaction`
 * (64 by default) per connection, and a commit already takes a relation lock
 * for each table and index it writes: a backfill commit of 1,600 sessions,
 * one lock each, on every connection of a fleet would exhaust it ("out of
 * shared memory").
 */
export const MAX_KEY_LOCKS = 32;

/**
 * The schema's own lock, `pg_advisory_xact_lock(hashtext(current_schema()))`,
 * which every write transaction of earlier versions took exclusively: now
 * each transaction that locks keys takes it shared, and one with more keys
 * than MAX_KEY_LOCKS exclusively. So a process of an earlier version on the
 * same schema still excludes every locking transaction, during a rolling
 * upgrade too.
 */
const SCHEMA_KEY = 'hashtext(current_schema())';

/**
 * The advisory locks one transaction holds (SqlExecutor.lock), on the
 * transaction's own connection. Each key is the two-part advisory lock
 * (schema, scope:key), hashed by the server with `hashtext`, so that an
 * operator can take or look one up in SQL:
 * `pg_advisory_xact_lock(hashtext(current_schema()), hashtext('account:NAME'))`.
 * The keys of one call are taken in the order of their hashes, which every
 * transaction shares, so two transactions that each lock in one call never
 * deadlock. Two keys with one hash are one lock: a wait longer than needed,
 * never a race.
 */
export class AdvisoryLocks {
  readonly #trx: Knex.Transaction;
  readonly #held = new Set<string>();
  #schemaHeld: 'shared' | 'exclusive' | null = null;

  constructor(trx: Knex.Transaction) {
    this.#trx = trx;
  }

  async lock(keys: LockKeys): Promise<void> {
    if (this.#schemaHeld === 'exclusive') return;
    const wanted = new Set<string>();
    for (const [scope, list] of Object.entries(keys)) for (const key of list) wanted.add(`${scope}:${key}`);
    for (const key of this.#held) wanted.delete(key);
    if (wanted.size === 0) return;
    if (this.#held.size + wanted.size > MAX_KEY_LOCKS) {
      // Held shared already, this waits for the other holders: two that do so at once deadlock, and one is run again.
      await this.#trx.raw(`SELECT pg_advisory_xact_lock(${SCHEMA_KEY})`);
      this.#schemaHeld = 'exclusive';
      return;
    }
    if (this.#schemaHeld === null) {
      await this.#trx.raw(`SELECT pg_advisory_xact_lock_shared(${SCHEMA_KEY})`);
      this.#schemaHeld = 'shared';
    }
    // A volatile function in the select list runs after ORDER BY (PostgreSQL 9.6 and later), so in hash order.
    await this.#trx.raw(
      `SELECT pg_advisory_xact_lock(${SCHEMA_KEY}, h) FROM ` +
        `(SELECT DISTINCT hashtext(k) AS h FROM unnest(?::text[]) AS k) AS keys ORDER BY h`,
      [arrayLiteral([...wanted])],
    );
    for (const key of wanted) this.#held.add(key);
  }
}
