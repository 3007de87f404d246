import { rejectedRow } from '../../normalize/rejected-row.js';
import type { NormalizedBatch, NormalizedSession, RejectedRow } from '../../normalize/rows.js';
import { storableJson } from '../../normalize/storable-text.js';
import { refusesRow, type StoreError } from '../drivers/store-error.js';

/** One thing a batch writes that the target may refuse on its own. */
type Entry = { session: NormalizedSession } | { rejected: RejectedRow };

export interface Refusal<T> {
  entry: T;
  error: StoreError;
}

/**
 * The entries the target refuses, found by bisection. `probe` writes a part
 * and resolves when the target took it, or rejects with the target's error;
 * it must leave nothing behind (a transaction rolled back). A part is halved
 * until the refused entries stand alone: k refused of n cost about
 * 2k·log2(n) probes. A part that fails while both its halves pass is refused
 * for what its rows are together, not for one of them: its error is thrown,
 * as is any error that does not blame a row.
 */
export async function findRefused<T>(
  entries: readonly T[],
  probe: (part: readonly T[]) => Promise<void>,
): Promise<Refusal<T>[]> {
  const refused: Refusal<T>[] = [];
  const visit = async (part: readonly T[], failed?: StoreError): Promise<boolean> => {
    let error = failed;
    if (error === undefined) {
      try {
        await probe(part);
        return false;
      } catch (e) {
        if (!refusesRow(e)) throw e;
        error = e;
      }
    }
    if (part.length === 1) {
      refused.push({ entry: part[0]!, error });
      return true;
    }
    const middle = Math.ceil(part.length / 2);
    const left = await visit(part.slice(0, middle));
    const right = await visit(part.slice(middle));
    if (!left && !right) throw error;
    return true;
  };
  if (entries.length > 0) await visit(entries);
  return refused;
}

/** The reason a session the target refused is kept aside with. */
export function refusedReason(error: StoreError): string {
  return `refused by the target: ${error.message}`;
}

/** Appended to a reason when `raw` had to be serialized again to be stored at all. */
const RESERIALIZED = '; raw serialized again with U+FFFD for characters the target cannot store';

/** Items in a batch all of which, refused, blame the statement rather than the items. */
const STATEMENT_FAULT = 4;

/** JSON escapes of U+0000 and of surrogates: what a jsonb column refuses. */
const UNSTORABLE_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/**
 * Commits `batch` through `commit` (one transaction). When the target
 * refuses a row, the batch's sessions and rejected items are probed (see
 * findRefused), and the batch is committed again without the refused
 * sessions, each kept aside in `rejected_items` with the target's one-line
 * reason and its raw text: its neighbours, and the page's checkpoint or the
 * delivery's inbox row, commit as before. Should that be refused too, the
 * last resort stores every JSON text that holds an escape the target refused
 * serialized again with U+FFFD in its place (`lastResort` tells `commit` to
 * do the same for its own JSON, such as a delivery's body). Errors that do
 * not blame a row fail the commit as they always did: a target that is down
 * never turns items into rejected ones. So does a refusal of every item of
 * a batch of STATEMENT_FAULT or more, which says more about the statement
 * (a column of the wrong type, say) than about the items.
 */
export async function commitKeepingAside<R>(
  batch: NormalizedBatch,
  commit: (batch: NormalizedBatch, lastResort: boolean) => Promise<R>,
  probe: (batch: NormalizedBatch) => Promise<void>,
): Promise<R> {
  let first: StoreError;
  try {
    return await commit(batch, false);
  } catch (error) {
    if (!refusesRow(error)) throw error;
    first = error;
  }
  const entries: Entry[] = [
    ...batch.sessions.map((session) => ({ session })),
    ...batch.rejected.map((rejected) => ({ rejected })),
  ];
  const refused = await findRefused(entries, (part) => probe(batchOf(part)));
  if (refused.length >= STATEMENT_FAULT && refused.length === entries.length) throw first;
  let kept = batch;
  if (refused.length > 0) {
    kept = keptAside(batch, refused);
    try {
      return await commit(kept, false);
    } catch (error) {
      if (!refusesRow(error)) throw error;
    }
  }
  return commit({ sessions: kept.sessions, rejected: kept.rejected.map(storableRejected) }, true);
}

function batchOf(entries: readonly Entry[]): NormalizedBatch {
  const batch: NormalizedBatch = { sessions: [], rejected: [] };
  for (const e of entries) {
    if ('session' in e) batch.sessions.push(e.session);
    else batch.rejected.push(e.rejected);
  }
  return batch;
}

/** The batch without its refused sessions, each one a rejected item instead. */
function keptAside(batch: NormalizedBatch, refused: readonly Refusal<Entry>[]): NormalizedBatch {
  const sessions = new Map<NormalizedSession, StoreError>();
  for (const { entry, error } of refused) if ('session' in entry) sessions.set(entry.session, error);
  if (sessions.size === 0) return batch;
  const rejected = [...batch.rejected];
  for (const [s, error] of sessions) {
    rejected.push(
      rejectedRow(s.resource, refusedReason(error), s.row.raw, s.row.service_id, s.row.account, s.row.last_synced_at),
    );
  }
  return { sessions: batch.sessions.filter((s) => !sessions.has(s)), rejected };
}

function storableRejected(row: RejectedRow): RejectedRow {
  if (!UNSTORABLE_ESCAPE.test(row.raw)) return row;
  return rejectedRow(
    row.resource,
    `${row.reason}${RESERIALIZED}`,
    storableJson(row.raw),
    row.service_id,
    row.account,
    row.seen_at,
  );
}

/** A delivery's body (or any JSON text of a row) as the last resort stores it. */
export function lastResortJson(text: string): string {
  return UNSTORABLE_ESCAPE.test(text) ? storableJson(text) : text;
}
