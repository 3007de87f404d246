import type { ImageRow, NormalizedSession, Resource, TextFieldRow, WarningRow } from '../../normalize/rows.js';
import { RESOURCES } from '../../config/constants.js';
import {
  rowSourceOf,
  rowVersion,
  sameTracked,
  sameVersion,
  trackedOf,
  versionStart,
  type HistorySource,
  type HistoryVersion,
  type RowVersionSource,
  type SessionVersions,
  type TrackedValues,
} from '../history/history-version.js';
import { isNewer, mergedCounter, type Observation } from './merge-rule.js';
import { ITEM_CHILD_KINDS, sameChildRows, storedSession, type ItemChildKind } from './stored-children.js';

/** What the store reads of a stored session before deciding: the merge rule's inputs plus preserved columns. */
export interface StoredSession extends Observation {
  account: string;
  first_seen_at: string;
  missing_since: string | null;
  /** With missing_since and update_counter, the values a new version in session_history is decided on. */
  result_id: string | null;
  result_final: boolean | null;
  flag: string | null;
  /** With account and api_version, what the version session_history shows from the row alone says (rowVersion). */
  created_at: string | null;
  source: HistorySource;
  /** The stored item text and interface: an observation with the same text and no higher counter changes nothing. */
  raw: string;
  api_version: string;
  /** Stored values of the columns some incoming observation preserves. */
  preserved: Readonly<Record<string, unknown>>;
}

export type StoredSessions = Readonly<Record<Resource, ReadonlyMap<string, StoredSession>>>;

export type ChildKind = 'session_text_fields' | 'session_images' | 'session_warnings';

export interface ChildRows {
  session_text_fields: TextFieldRow[];
  session_images: ImageRow[];
  session_warnings: WarningRow[];
}

/**
 * What became of one incoming observation: a new row, a replaced row whose
 * content changed, a later observation of the same content (only marks the
 * session seen), or an older one that lost (stale).
 */
export type SessionOutcome = 'inserted' | 'changed' | 'unchanged' | 'stale';

export interface MergePlan {
  /** One per incoming session, in input order. */
  outcomes: SessionOutcome[];
  /** Complete rows to insert or replace, per session table. */
  rows: Record<Resource, Record<string, unknown>[]>;
  /** Stored sessions an observation lost to but still saw: set last_synced_at, clear missing_since. */
  seen: Array<{ resource: Resource; serviceId: string; lastSyncedAt: string }>;
  /** Child rows to replace: the stored rows of `replaceStored` ids go, `rows` come. */
  children: Record<ChildKind, { replaceStored: string[]; rows: Array<TextFieldRow | ImageRow | WarningRow> }>;
  /**
   * Whether some service_id is in the batch under both resources. Child rows
   * are keyed by service_id alone, and the rows of one observation are
   * unique by construction (map keys, numbered photos, one warning per
   * code), so only then can `children` hold one key twice.
   */
  childKeysMayRepeat: boolean;
  /** The sessions whose tracked values changed, with their new versions for session_history. */
  versions: SessionVersions[];
}

/**
 * Which child rows an observation replaces. Text fields and images are
 * replaced when the observation carries some (a v1.4 search leaves photos out
 * unless asked, so their absence says nothing). Warnings are replaced by every
 * poll, which sees the whole item; a webhook item lacks fingerprint_parent and
 * so cannot know the parent warning, and keeps the stored ones unless it
 * brings its own. Naming a child table in `preserve` always keeps it.
 */
export function replacedChildren(session: NormalizedSession): Record<ChildKind, boolean> {
  const kept = (kind: ChildKind): boolean => session.preserve.includes(kind);
  return {
    session_text_fields: !kept('session_text_fields') && session.textFields.length > 0,
    session_images: !kept('session_images') && session.images.length > 0,
    session_warnings: !kept('session_warnings') && (session.warnings.length > 0 || session.row.source !== 'webhook'),
  };
}

interface Current {
  obs: Observation;
  raw: string;
  apiVersion: string;
  firstSeenAt: string;
  missingSince: string | null;
  lastSyncedAt: string;
  /** The row this batch writes, once an observation of the batch won. */
  row: Record<string, unknown> | null;
  /** Whether `row` is the incoming session's own object, copied before a change (markSeen). */
  rowShared: boolean;
  preserved: Readonly<Record<string, unknown>>;
  stored: boolean;
  seenChanged: boolean;
  children: Partial<ChildRows>;
  account: string;
  /** The values the session's latest version has: stored, or as this batch left them. */
  tracked: TrackedValues;
  /** Versions this batch adds, oldest first. */
  versions: HistoryVersion[];
  /** What the stored row said of its version; null when the target held no row. */
  before: RowVersionSource | null;
}

const laterOf = (a: string, b: string): string => (a >= b ? a : b);

/** A session row as the record of columns a target writes: the same object, not a copy. */
const columnsOf = (row: object): Record<string, unknown> => row as Record<string, unknown>;

export interface MergeOptions {
  /**
   * Service ids whose stored row is rewritten by a newer observation even when
   * its item text is the same: `verify --repair` found the stored columns
   * differing from what that text says (a row edited in the target). Newer
   * still never loses to older.
   * @default none
   */
  rewrite?: ReadonlySet<string>;
  /**
   * What the versions this merge writes to session_history name as their
   * source, instead of each observation's own: `verify` for `verify --repair`.
   * @default each session row's source
   */
  source?: HistorySource;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Applies a batch's sessions, in order, to what is stored: newer never loses
 * (merge-rule.ts). A winner replaces the row but keeps the stored
 * first_seen_at, the highest update_counter and the columns it `preserve`s; a
 * loser is counted stale, and unless it came by webhook still marks the
 * session seen (a page that returned it proves it exists). A later
 * observation of the very same item text (and no higher counter) is
 * `unchanged`: it only marks the session seen, so an idle sync rewrites no
 * row and reports nothing new. The same session twice in a batch is decided
 * against the earlier one.
 */
export function planMerge(
  sessions: readonly NormalizedSession[],
  stored: StoredSessions,
  options: MergeOptions = {},
): MergePlan {
  const rewrite = options.rewrite ?? NONE;
  const current: Record<Resource, Map<string, Current>> = { authentications: new Map(), fingerprints: new Map() };
  const outcomes: SessionOutcome[] = [];
  for (const session of sessions) {
    const id = session.row.service_id;
    const states = current[session.resource];
    let state = states.get(id);
    if (state === undefined) {
      const s = stored[session.resource].get(id);
      if (s !== undefined) {
        state = {
          obs: {
            update_counter: s.update_counter,
            last_updated_at: s.last_updated_at,
            last_synced_at: s.last_synced_at,
          },
          raw: s.raw,
          apiVersion: s.api_version,
          firstSeenAt: s.first_seen_at,
          missingSince: s.missing_since,
          lastSyncedAt: s.last_synced_at,
          row: null,
          rowShared: false,
          preserved: s.preserved,
          stored: true,
          seenChanged: false,
          children: {},
          account: s.account,
          tracked: trackedOf(s),
          versions: [],
          before: rowSourceOf(s),
        };
        states.set(id, state);
      }
    }
    const obs: Observation = {
      update_counter: session.row.update_counter,
      last_updated_at: session.row.last_updated_at,
      last_synced_at: session.row.last_synced_at,
    };
    if (state !== undefined && (!isNewer(state.obs, obs) || (sameContent(state, session) && !rewrite.has(id)))) {
      outcomes.push(isNewer(state.obs, obs) ? 'unchanged' : 'stale');
      if (session.row.source !== 'webhook') {
        if (state.missingSince !== null) {
          // Seen again: a version of its own, dated by this observation (the service changed nothing).
          const values = { ...state.tracked, missing_since: null };
          const source = options.source ?? session.row.source;
          state.versions.push(version(values, state.account, session.row.last_synced_at, source, state.apiVersion));
          state.tracked = values;
        }
        markSeen(state, session.row.last_synced_at);
      }
      continue;
    }
    outcomes.push(state === undefined ? 'inserted' : 'changed');
    // A new session's row is written as it came (most of a backfill): copied only to be changed.
    const incoming = state === undefined ? columnsOf(session.row) : { ...session.row };
    if (state !== undefined) {
      incoming.first_seen_at = state.firstSeenAt;
      incoming.update_counter = mergedCounter(state.obs.update_counter, session.row.update_counter);
      incoming.last_synced_at = laterOf(state.lastSyncedAt, session.row.last_synced_at);
      const previous = state.row ?? state.preserved;
      for (const column of session.preserve) if (column in previous) incoming[column] = previous[column];
    }
    const replaced = replacedChildren(session);
    // The first change of a stored session in this batch: its stored child rows are still the target's own.
    const kept = state?.row === null && !rewrite.has(id) ? keptChildren(session, replaced, state) : NOTHING_KEPT;
    const children: Partial<ChildRows> = state?.children ?? {};
    if (replaced.session_text_fields && !kept.session_text_fields) children.session_text_fields = session.textFields;
    if (replaced.session_images && !kept.session_images) children.session_images = session.images;
    if (replaced.session_warnings) children.session_warnings = session.warnings;
    const tracked = trackedOf(incoming);
    const versions = state?.versions ?? [];
    if (state === undefined || !sameTracked(state.tracked, tracked)) {
      const start = versionStart(state?.tracked ?? null, tracked, session.row);
      const source = options.source ?? session.row.source;
      versions.push(version(tracked, session.row.account, start, source, session.row.api_version));
    }
    const next: Current = {
      obs: {
        update_counter: incoming.update_counter as number | null,
        last_updated_at: session.row.last_updated_at,
        last_synced_at: incoming.last_synced_at as string,
      },
      raw: session.row.raw,
      apiVersion: session.row.api_version,
      firstSeenAt: incoming.first_seen_at as string,
      missingSince: (incoming.missing_since as string | null) ?? null,
      lastSyncedAt: incoming.last_synced_at as string,
      row: incoming,
      rowShared: state === undefined,
      preserved: state?.preserved ?? {},
      stored: state?.stored ?? false,
      seenChanged: false,
      children,
      account: session.row.account,
      tracked,
      versions,
      before: state?.before ?? null,
    };
    states.set(id, next);
  }
  return assemble(current, outcomes);
}

function version(
  values: TrackedValues,
  account: string,
  validFrom: string,
  source: HistorySource,
  apiVersion: string,
): HistoryVersion {
  return { ...values, account, valid_from: validFrom, source, api_version: apiVersion };
}

const NOTHING_KEPT: Readonly<Record<ItemChildKind, boolean>> = { session_text_fields: false, session_images: false };

/**
 * The child kinds a changed session keeps as stored: those its stored item
 * carries, and gives the very rows the new one does. A refresh sees a
 * non-final session's result change far more often than its text fields or
 * photos, and a DuckDB target, which has no index on service_id
 * (duckdb-keyless.ts), reads every row of a child table to delete a
 * session's: at a million sessions about 0.2 s a commit. The rows of the
 * kinds kept are those an item of the same text gave when it was stored.
 */
function keptChildren(
  session: NormalizedSession,
  replaced: Readonly<Record<ChildKind, boolean>>,
  state: Current,
): Readonly<Record<ItemChildKind, boolean>> {
  if (!ITEM_CHILD_KINDS.some((kind) => replaced[kind])) return NOTHING_KEPT;
  const before = storedSession(session.resource, {
    raw: state.raw,
    apiVersion: state.apiVersion,
    account: state.account,
  });
  if (before === null) return NOTHING_KEPT;
  const carried = replacedChildren(before);
  return {
    session_text_fields: carried.session_text_fields && sameChildRows(before.textFields, session.textFields),
    session_images: carried.session_images && sameChildRows(before.images, session.images),
  };
}

/** The observation repeats what the batch or the target holds: same text, same interface, no higher counter. */
function sameContent(state: Current, session: NormalizedSession): boolean {
  return (
    state.raw === session.row.raw &&
    state.apiVersion === session.row.api_version &&
    mergedCounter(state.obs.update_counter, session.row.update_counter) === state.obs.update_counter
  );
}

/** A poll that returned the session proves it exists: later last_synced_at, no missing_since. */
function markSeen(state: Current, syncedAt: string): void {
  const lastSyncedAt = laterOf(state.lastSyncedAt, syncedAt);
  if (lastSyncedAt === state.lastSyncedAt && state.missingSince === null) return;
  state.lastSyncedAt = lastSyncedAt;
  state.missingSince = null;
  if (state.row) {
    if (state.rowShared) {
      state.row = { ...state.row };
      state.rowShared = false;
    }
    state.row.last_synced_at = lastSyncedAt;
    state.row.missing_since = null;
  } else state.seenChanged = true;
}

function assemble(current: Record<Resource, Map<string, Current>>, outcomes: SessionOutcome[]): MergePlan {
  const plan: MergePlan = {
    outcomes,
    rows: { authentications: [], fingerprints: [] },
    seen: [],
    children: {
      session_text_fields: { replaceStored: [], rows: [] },
      session_images: { replaceStored: [], rows: [] },
      session_warnings: { replaceStored: [], rows: [] },
    },
    childKeysMayRepeat: false,
    versions: [],
  };
  const [fewer, more] =
    current.authentications.size <= current.fingerprints.size
      ? [current.authentications, current.fingerprints]
      : [current.fingerprints, current.authentications];
  for (const id of fewer.keys()) {
    if (more.has(id)) {
      plan.childKeysMayRepeat = true;
      break;
    }
  }
  for (const resource of RESOURCES) {
    for (const [serviceId, state] of current[resource]) {
      const versioned = versionsOf(resource, serviceId, state);
      if (versioned !== null) plan.versions.push(versioned);
      if (state.row) plan.rows[resource].push(state.row);
      else if (state.seenChanged) plan.seen.push({ resource, serviceId, lastSyncedAt: state.lastSyncedAt });
      for (const kind of ['session_text_fields', 'session_images', 'session_warnings'] as const) {
        const rows = state.children[kind];
        if (rows === undefined) continue;
        if (state.stored) plan.children[kind].replaceStored.push(serviceId);
        plan.children[kind].rows.push(...rows);
      }
    }
  }
  return plan;
}

/**
 * What session_history must learn of a session in this batch: its new
 * versions; or, for a stored row rewritten without a change of tracked values
 * (another interface, source or account), that the version its row told
 * would change with the row (history-store.ts then writes it). Null when
 * neither.
 */
function versionsOf(resource: Resource, serviceId: string, state: Current): SessionVersions | null {
  const after = state.row === null ? null : rowSourceOf(state.row);
  if (state.versions.length > 0) return { resource, serviceId, versions: state.versions, before: state.before, after };
  if (state.before === null || after === null) return null;
  const key = { resource, serviceId };
  if (sameVersion(rowVersion(key, state.before), rowVersion(key, after))) return null;
  return { resource, serviceId, versions: [], before: state.before, after };
}
