import type { Knex } from 'knex';
import type { LockScope } from '../sql-driver.js';

/**
 * Most keys a transaction locks one by one; past this it locks the whole
 * schema instead. Advisory locks live in the server's shared lock table,
 * sized for `max_locks_per_transaction` (64 by default) per connection, and a
 * commit already takes a relation lock for each table and index it writes: a
 * backfill commit of 1,600 sessions, one lock each, on every connection of a
 * fleet would exhaust it ("out of shared memory").
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
 * Holds `keys` of `scope` until `trx` ends (SqlExecutor.lock). Each key is
 * the two-part advisory lock (schema, scope:key), hashed by the server with
 * `hashtext`, so that an operator can take or look one up in SQL:
 * `pg_advisory_xact_lock(hashtext(current_schema()), hashtext('account:NAME'))`.
 * Keys are taken in the order of their hashes, which every transaction
 * shares, so two transactions that lock overlapping sets of keys in one call
 * never deadlock. Two keys with one hash are one lock: a wait longer than
 * needed, never a race.
 */
export async function lockKeys(trx: Knex.Transaction, scope: LockScope, keys: readonly string[]): Promise<void> {
  const unique = [...new Set(keys)];
  if (unique.length === 0) return;
  if (unique.length > MAX_KEY_LOCKS) {
    await trx.raw(`SELECT pg_advisory_xact_lock(${SCHEMA_KEY})`);
    return;
  }
  await trx.raw(`SELECT pg_advisory_xact_lock_shared(${SCHEMA_KEY})`);
  // A volatile function in the select list runs after ORDER BY (PostgreSQL 9.6 and later), so in hash order.
  await trx.raw(
    `SELECT pg_advisory_xact_lock(${SCHEMA_KEY}, h) FROM ` +
      `(SELECT DISTINCT hashtext(? || ':' || k) AS h FROM unnest(?::text[]) AS k) AS keys ORDER BY h`,
    [scope, unique],
  );
}
