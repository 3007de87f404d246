import type { ApiVersion, NormalizedBatch, NormalizedSession, RejectedRow, Resource } from '../normalize/rows.js';
import { isoFromMicros, microsFromIso } from '../normalize/time.js';
import { checkpointAdvances, type CheckpointAdvance } from './checkpoint-advance.js';
import { planMerge, type ChildKind, type MergePlan, type StoredSession, type StoredSessions } from './merge-plan.js';
import { table, TABLES, type TableDef } from './schema.js';
import type {
  CommitResult,
  DeliveryRecord,
  LeaseState,
  NonFinalSession,
  PageCommit,
  PassSpec,
  RunEnd,
  RunStart,
  Sink,
  StatusReport,
  WindowKey,
  WindowQuery,
  WindowSpec,
  WindowState,
  WindowStatus,
} from './sink.js';
import { placeholders } from './placeholders.js';
import type { Row, SqlDriver, SqlExecutor } from './sql-driver.js';

const RESOURCES: readonly Resource[] = ['authentications', 'fingerprints'];
const CHILD_KINDS: readonly ChildKind[] = ['session_text_fields', 'session_images', 'session_warnings'];

/** Tables with an `account` column that sync writes row by row; every other such table is a mirror (webhooks, domains, catalog_*). */
const NOT_MIRRORS: ReadonlySet<string> = new Set([...RESOURCES, 'sync_windows', 'sync_runs', 'rejected_items']);

const WINDOW_KEY_WHERE = 'account = ? AND resource = ? AND api_version = ? AND window_start = ?';
const windowKeyParams = (key: WindowKey): unknown[] => [key.account, key.resource, key.apiVersion, key.windowStart];

export interface SqlSinkOptions {
  /** Used where the Sink method takes no time of its own (planWindows, migrations). */
  clock: () => Date;
}

/**
 * The Sink, written once over a SqlDriver: every decision (newer wins, which
 * children are replaced, the checkpoint, missing detection) is made here in
 * TypeScript, and the drivers only move rows.
 */
/**
 * A Sink that also answers read-only SQL (the views, the tables): what an
 * export, a report or a test reads back. Values come back as the dialect gives
 * them (see sql-driver.ts).
 */
export interface QueryableSink extends Sink {
  query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
}

export class SqlSink implements QueryableSink {
  readonly dialect: Sink['dialect'];
  readonly #driver: SqlDriver;
  readonly #clock: () => Date;

  constructor(driver: SqlDriver, options: SqlSinkOptions) {
    this.#driver = driver;
    this.dialect = driver.dialect;
    this.#clock = options.clock;
  }

  #now(): string {
    return isoFromMicros(this.#clock().getTime() * 1000);
  }

  async migrate(): Promise<void> {
    await this.#driver.migrate();
  }

  async planWindows(windows: readonly WindowSpec[]): Promise<void> {
    if (windows.length === 0) return;
    const now = this.#now();
    const def = table('sync_windows');
    await this.#driver.transaction((tx) => tx.write(def, uniqueByKey(def, windows.map((w) => newWindowRow(w, now))), 'ignore'));
  }

  async listWindows(query: WindowQuery): Promise<WindowState[]> {
    const where = ['account = ?', 'resource = ?', 'api_version = ?'];
    const params: unknown[] = [query.account, query.resource, query.apiVersion];
    if (query.from !== undefined) {
      where.push('window_end > ?');
      params.push(query.from);
    }
    if (query.to !== undefined) {
      where.push('window_start < ?');
      params.push(query.to);
    }
    if (query.status !== undefined) {
      if (query.status.length === 0) return [];
      where.push(`status IN (${placeholders(query.status.length)})`);
      params.push(...query.status);
    }
    const rows = await this.#driver.read((tx) =>
      tx.all(`SELECT * FROM sync_windows WHERE ${where.join(' AND ')} ORDER BY window_start DESC`, params),
    );
    return rows.map(windowState);
  }

  async startPass(key: WindowKey, pass: PassSpec): Promise<void> {
    await this.#driver.transaction(async (tx) => {
      const changed = await tx.run(
        `UPDATE sync_windows SET status = 'running', cursor = NULL, pages = 0, items = 0, attempts = attempts + 1, error = NULL,
           updated_at = ?, pass_from = ?, pass_to = ?, pass_started_at = ? WHERE ${WINDOW_KEY_WHERE}`,
        [pass.startedAt, pass.passFrom, pass.passTo, pass.startedAt, ...windowKeyParams(key)],
      );
      if (changed !== 1) throw new Error(`startPass: no window ${describeKey(key)}`);
    });
  }

  commitPage(page: PageCommit): Promise<CommitResult> {
    return this.commitPages([page]);
  }

  async commitPages(pages: readonly PageCommit[]): Promise<CommitResult> {
    if (pages.length === 0) return { written: 0, stale: 0, rejected: 0, missing: 0 };
    return this.#driver.transaction(async (tx) => {
      const sessions: NormalizedSession[] = [];
      const rejected: RejectedRow[] = [];
      for (const page of pages) {
        sessions.push(...page.batch.sessions);
        rejected.push(...page.batch.rejected);
      }
      // One merge for the whole group: sessions are decided in page order, as
      // if committed one by one, but read and written in bulk. Missing
      // detection runs after the group's merge, so a session that a later
      // page of the group sees is never marked (one by one, it would be
      // marked and cleared again): same rows, a smaller `missing` count.
      const merged = await this.#merge(tx, sessions);
      await this.#writeRejected(tx, rejected);
      let missing = 0;
      for (const advance of checkpointAdvances(pages)) missing += await this.#checkpoint(tx, advance);
      return { ...merged, rejected: rejected.length, missing };
    });
  }

  async mergeBatch(batch: NormalizedBatch, _now: string): Promise<CommitResult> {
    return this.#driver.transaction(async (tx) => {
      const merged = await this.#merge(tx, batch.sessions);
      await this.#writeRejected(tx, batch.rejected);
      return { ...merged, rejected: batch.rejected.length, missing: 0 };
    });
  }

  async splitWindow(key: WindowKey, keepFrom: number, parts: readonly WindowSpec[], now: string): Promise<void> {
    await this.#driver.transaction(async (tx) => {
      const window = await this.#window(tx, key);
      if (keepFrom <= window.windowStart || keepFrom >= window.windowEnd) {
        throw new Error(`splitWindow: ${keepFrom} is not inside ${describeKey(key)} [${window.windowStart}, ${window.windowEnd})`);
      }
      assertPartition(parts, key, window.windowStart, keepFrom);
      const passFrom = window.passFrom === null ? keepFrom : Math.max(window.passFrom, keepFrom);
      const passTo = window.passTo ?? window.windowEnd;
      await tx.run(
        `UPDATE sync_windows SET window_start = ?, status = 'done', cursor = NULL, pass_from = ?, pass_to = ?, synced_to = ?, updated_at = ?
         WHERE ${WINDOW_KEY_WHERE}`,
        [keepFrom, passFrom, passTo, Math.max(passTo, window.syncedTo ?? passTo), now, ...windowKeyParams(key)],
      );
      await tx.write(table('sync_windows'), parts.map((p) => newWindowRow(p, now)), 'ignore');
    });
  }

  async markWindow(key: WindowKey, status: WindowStatus, error: string | null, now: string): Promise<void> {
    await this.#driver.transaction(async (tx) => {
      const changed = await tx.run(`UPDATE sync_windows SET status = ?, error = ?, updated_at = ? WHERE ${WINDOW_KEY_WHERE}`, [
        status,
        error,
        now,
        ...windowKeyParams(key),
      ]);
      if (changed !== 1) throw new Error(`markWindow: no window ${describeKey(key)}`);
    });
  }

  async highWaterMark(account: string, resource: Resource, apiVersion: ApiVersion): Promise<number | null> {
    const [row] = await this.#driver.read((tx) =>
      tx.all('SELECT MAX(synced_to) AS hwm FROM sync_windows WHERE account = ? AND resource = ? AND api_version = ?', [
        account,
        resource,
        apiVersion,
      ]),
    );
    return numberOrNull(row?.hwm);
  }

  async markMissing(account: string, resource: Resource, serviceIds: readonly string[], now: string): Promise<number> {
    if (serviceIds.length === 0) return 0;
    return this.#driver.transaction(async (tx) => {
      const list = tx.inList([...new Set(serviceIds)]);
      return tx.run(
        `UPDATE ${sessionTable(resource).name} SET missing_since = ?
         WHERE account = ? AND missing_since IS NULL AND service_id IN ${list.sql}`,
        [now, account, ...list.params],
      );
    });
  }

  async nonFinalSessions(account: string, resource: Resource): Promise<NonFinalSession[]> {
    const rows = await this.#driver.read((tx) =>
      tx.all(
        `SELECT service_id, created_epoch FROM ${sessionTable(resource).name}
         WHERE account = ? AND NOT result_final AND missing_since IS NULL ORDER BY created_epoch, service_id`,
        [account],
      ),
    );
    return rows.map((r) => ({ serviceId: String(r.service_id), createdEpoch: numberOrNull(r.created_epoch) }));
  }

  async applyDelivery(delivery: DeliveryRecord, batch: NormalizedBatch): Promise<CommitResult & { duplicate: boolean }> {
    return this.#driver.transaction(async (tx) => {
      const existing = await tx.all('SELECT id FROM webhook_deliveries WHERE id = ?', [delivery.id]);
      if (existing.length > 0) return { written: 0, stale: 0, rejected: 0, missing: 0, duplicate: true };
      const merged = await this.#merge(tx, batch.sessions);
      await this.#writeRejected(tx, batch.rejected);
      await tx.write(
        table('webhook_deliveries'),
        [
          {
            id: delivery.id,
            webhook_uuid: delivery.webhookUuid,
            channel: delivery.channel,
            received_at: delivery.receivedAt,
            signature_ok: true,
            items: delivery.items,
            applied: merged.written,
            body: delivery.body,
          },
        ],
        'ignore',
      );
      return { ...merged, rejected: batch.rejected.length, missing: 0, duplicate: false };
    });
  }

  async replaceMirror(tableName: string, account: string, rows: readonly Record<string, unknown>[]): Promise<void> {
    const def = TABLES.find((t) => t.name === tableName);
    if (!def || NOT_MIRRORS.has(def.name) || !def.columns.some((c) => c.name === 'account')) throw new Error(`replaceMirror: ${tableName} is not a mirror table`);
    const names = new Set(def.columns.map((c) => c.name));
    for (const row of rows) {
      const absent = def.columns.filter((c) => !(c.name in row)).map((c) => c.name);
      const unknown = Object.keys(row).filter((k) => !names.has(k));
      if (absent.length > 0 || unknown.length > 0) {
        throw new Error(`replaceMirror ${tableName}: row lacks [${absent.join(', ')}], has unknown [${unknown.join(', ')}]`);
      }
      if (row.account !== account) throw new Error(`replaceMirror ${tableName}: row of account ${String(row.account)} given for ${account}`);
    }
    await this.#driver.transaction(async (tx) => {
      await tx.run(`DELETE FROM ${def.name} WHERE account = ?`, [account]);
      await tx.write(def, uniqueByKey(def, rows), 'replace');
    });
  }

  async acquireLease(name: string, holder: string, ttlSeconds: number, now: string): Promise<LeaseState> {
    const nowMicros = microsFromIso(now);
    if (nowMicros === null) throw new Error(`acquireLease: not an ISO time: ${now}`);
    const staleBefore = isoFromMicros(nowMicros - Math.round(ttlSeconds * 1_000_000));
    return this.#driver.transaction(async (tx) => {
      // One statement decides: insert, renew (same holder) or take over a lease
      // whose heartbeat is older than the ttl; a live lease of another holder is left alone.
      await tx.run(
        `INSERT INTO sync_leases (name, holder, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET
           acquired_at = CASE WHEN sync_leases.holder = excluded.holder THEN sync_leases.acquired_at ELSE excluded.acquired_at END,
           holder = excluded.holder,
           heartbeat_at = excluded.heartbeat_at
         WHERE sync_leases.holder = excluded.holder OR sync_leases.heartbeat_at < ?`,
        [name, holder, now, now, staleBefore],
      );
      const [row] = await tx.all('SELECT name, holder, acquired_at, heartbeat_at FROM sync_leases WHERE name = ?', [name]);
      if (!row) throw new Error(`acquireLease: lease ${name} vanished`);
      return leaseState(row, holder);
    });
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.#driver.transaction((tx) => tx.run('DELETE FROM sync_leases WHERE name = ? AND holder = ?', [name, holder]));
  }

  async leases(): Promise<LeaseState[]> {
    const rows = await this.#driver.read((tx) => tx.all('SELECT name, holder, acquired_at, heartbeat_at FROM sync_leases ORDER BY name'));
    return rows.map((r) => leaseState(r, null));
  }

  async startRun(run: RunStart): Promise<void> {
    await this.#driver.transaction((tx) =>
      tx.write(
        table('sync_runs'),
        [
          {
            id: run.id,
            command: run.command,
            started_at: run.startedAt,
            finished_at: null,
            status: 'running',
            requests: 0,
            items_written: 0,
            error: null,
            account: run.account,
          },
        ],
        'replace',
      ),
    );
  }

  async finishRun(id: string, end: RunEnd): Promise<void> {
    await this.#driver.transaction(async (tx) => {
      const changed = await tx.run(
        'UPDATE sync_runs SET finished_at = ?, status = ?, requests = ?, items_written = ?, error = ? WHERE id = ?',
        [end.finishedAt, end.status, end.requests, end.itemsWritten, end.error, id],
      );
      if (changed !== 1) throw new Error(`finishRun: no run ${id}`);
    });
  }

  async status(): Promise<StatusReport> {
    return this.#driver.read(async (tx) => {
      const tables: Record<string, number> = {};
      for (const def of TABLES) {
        const [row] = await tx.all(`SELECT COUNT(*) AS n FROM ${def.name}`);
        tables[def.name] = Number(row?.n ?? 0);
      }
      const windows = await tx.all(
        `SELECT account, resource, api_version, status, COUNT(*) AS n, SUM(items) AS items FROM sync_windows
         GROUP BY account, resource, api_version, status ORDER BY account, resource, api_version, status`,
      );
      const marks = await tx.all(
        `SELECT account, resource, api_version, MAX(synced_to) AS hwm FROM sync_windows
         GROUP BY account, resource, api_version ORDER BY account, resource, api_version`,
      );
      const nonFinal = { authentications: 0, fingerprints: 0 };
      const missing = { authentications: 0, fingerprints: 0 };
      for (const resource of RESOURCES) {
        const [row] = await tx.all(
          `SELECT SUM(CASE WHEN NOT result_final AND missing_since IS NULL THEN 1 ELSE 0 END) AS non_final,
                  SUM(CASE WHEN missing_since IS NOT NULL THEN 1 ELSE 0 END) AS missing
           FROM ${sessionTable(resource).name}`,
        );
        nonFinal[resource] = Number(row?.non_final ?? 0);
        missing[resource] = Number(row?.missing ?? 0);
      }
      const runs = await tx.all(
        `SELECT id, command, started_at, finished_at, status, requests, items_written, error FROM sync_runs
         ORDER BY started_at DESC, id DESC LIMIT 10`,
      );
      return {
        tables,
        windows: windows.map((w) => ({
          account: String(w.account),
          resource: w.resource as Resource,
          apiVersion: w.api_version as ApiVersion,
          status: w.status as WindowStatus,
          count: Number(w.n),
          items: Number(w.items ?? 0),
        })),
        highWaterMarks: marks.map((m) => ({
          account: String(m.account),
          resource: m.resource as Resource,
          apiVersion: m.api_version as ApiVersion,
          syncedTo: numberOrNull(m.hwm),
        })),
        nonFinal,
        missing,
        rejected: tables.rejected_items ?? 0,
        lastRuns: runs.map((r) => ({
          id: String(r.id),
          command: String(r.command),
          startedAt: String(r.started_at),
          finishedAt: stringOrNull(r.finished_at),
          status: String(r.status),
          requests: Number(r.requests),
          itemsWritten: Number(r.items_written),
          error: stringOrNull(r.error),
        })),
      };
    });
  }

  query(sql: string, params: readonly unknown[] = []): Promise<Record<string, unknown>[]> {
    return this.#driver.read((tx) => tx.all(sql, params));
  }

  close(): Promise<void> {
    return this.#driver.close();
  }

  async #merge(tx: SqlExecutor, sessions: readonly NormalizedSession[]): Promise<Pick<CommitResult, 'written' | 'stale'>> {
    if (sessions.length === 0) return { written: 0, stale: 0 };
    const stored: StoredSessions = {
      authentications: await this.#stored(tx, 'authentications', sessions),
      fingerprints: await this.#stored(tx, 'fingerprints', sessions),
    };
    const plan = planMerge(sessions, stored);
    await this.#apply(tx, plan, stored);
    return { written: plan.written, stale: plan.stale };
  }

  async #stored(tx: SqlExecutor, resource: Resource, sessions: readonly NormalizedSession[]): Promise<Map<string, StoredSession>> {
    const def = sessionTable(resource);
    const ids = new Set<string>();
    const preserve = new Set<string>();
    for (const s of sessions) {
      if (s.resource !== resource) continue;
      ids.add(s.row.service_id);
      for (const column of s.preserve) preserve.add(column);
    }
    const stored = new Map<string, StoredSession>();
    if (ids.size === 0) return stored;
    // Only real columns: `preserve` may also name child tables, and names reach SQL text.
    const extra = def.columns.map((c) => c.name).filter((c) => preserve.has(c));
    const select = ['service_id', 'update_counter', 'last_updated_at', 'last_synced_at', 'first_seen_at', 'missing_since', ...extra];
    const list = tx.inList([...ids]);
    const rows = await tx.all(`SELECT ${select.join(', ')} FROM ${def.name} WHERE service_id IN ${list.sql}`, list.params);
    for (const r of rows) {
      const preserved: Record<string, unknown> = {};
      for (const c of extra) preserved[c] = r[c];
      stored.set(String(r.service_id), {
        update_counter: numberOrNull(r.update_counter),
        last_updated_at: stringOrNull(r.last_updated_at),
        last_synced_at: String(r.last_synced_at),
        first_seen_at: String(r.first_seen_at),
        missing_since: stringOrNull(r.missing_since),
        preserved,
      });
    }
    return stored;
  }

  /**
   * Rows of sessions that were not stored are inserted without conflict
   * handling (the read that proved them absent ran in this transaction, under
   * the write lock), which is the fast path of every dialect; only replaced
   * sessions pay for the upsert.
   */
  async #apply(tx: SqlExecutor, plan: MergePlan, stored: StoredSessions): Promise<void> {
    const fresh = new Set<string>();
    for (const resource of RESOURCES) {
      const rows = plan.rows[resource];
      if (rows.length === 0) continue;
      const known = stored[resource];
      const inserted: Row[] = [];
      const replaced: Row[] = [];
      for (const row of rows) {
        const id = row.service_id as string;
        if (known.has(id)) replaced.push(row);
        else {
          inserted.push(row);
          fresh.add(id);
        }
      }
      if (inserted.length > 0) await tx.write(sessionTable(resource), inserted, 'fail');
      if (replaced.length > 0) await tx.write(sessionTable(resource), replaced, 'replace');
    }
    const seenGroups = new Map<string, string[]>();
    for (const s of plan.seen) {
      const group = `${s.resource}\u0000${s.lastSyncedAt}`;
      const ids = seenGroups.get(group) ?? [];
      ids.push(s.serviceId);
      seenGroups.set(group, ids);
    }
    for (const [group, ids] of seenGroups) {
      const [resource, lastSyncedAt] = group.split('\u0000') as [Resource, string];
      const list = tx.inList(ids);
      await tx.run(`UPDATE ${sessionTable(resource).name} SET last_synced_at = ?, missing_since = NULL WHERE service_id IN ${list.sql}`, [
        lastSyncedAt,
        ...list.params,
      ]);
    }
    const orphans = await this.#orphanChildren(tx, plan, fresh);
    for (const kind of CHILD_KINDS) {
      const { replaceStored, rows } = plan.children[kind];
      const replace = [...replaceStored];
      if (orphans.size > 0) for (const id of new Set(rows.map((r) => r.service_id))) if (orphans.has(id)) replace.push(id);
      if (replace.length > 0) {
        const list = tx.inList(replace);
        await tx.run(`DELETE FROM ${kind} WHERE service_id IN ${list.sql}`, list.params);
      }
      // Every session these rows belong to has no child rows of this kind left.
      if (rows.length > 0) {
        const unique = plan.childKeysMayRepeat ? uniqueByKey(table(kind), rows as unknown as Row[]) : (rows as unknown as Row[]);
        await tx.write(table(kind), unique, 'fail');
      }
    }
  }

  /**
   * Ids among `fresh` (sessions just inserted) that still have child rows:
   * children are keyed by service_id alone, so a session stored under the
   * other resource, or a row deleted by hand, may have left some. One query,
   * which finds nothing in every ordinary run.
   */
  async #orphanChildren(tx: SqlExecutor, plan: MergePlan, fresh: ReadonlySet<string>): Promise<Set<string>> {
    const ids = new Set<string>();
    for (const kind of CHILD_KINDS) for (const r of plan.children[kind].rows) if (fresh.has(r.service_id)) ids.add(r.service_id);
    if (ids.size === 0) return ids;
    const list = tx.inList([...ids]);
    const found = await tx.all(
      `WITH fresh(service_id) AS ${list.sql} ` +
        CHILD_KINDS.map((kind) => `SELECT service_id FROM ${kind} WHERE service_id IN (SELECT service_id FROM fresh)`).join(' UNION '),
      list.params,
    );
    return new Set(found.map((r) => String(r.service_id)));
  }

  async #writeRejected(tx: SqlExecutor, rows: readonly RejectedRow[]): Promise<void> {
    if (rows.length === 0) return;
    const def = table('rejected_items');
    await tx.write(def, uniqueByKey(def, rows as unknown as Row[]), 'replace');
  }

  async #window(tx: SqlExecutor, key: WindowKey): Promise<WindowState> {
    const [row] = await tx.all(`SELECT * FROM sync_windows WHERE ${WINDOW_KEY_WHERE}`, windowKeyParams(key));
    if (!row) throw new Error(`no window ${describeKey(key)}`);
    return windowState(row);
  }

  /** Advances one window's checkpoint; when the pass completes, marks the sessions of its range it did not see missing. */
  async #checkpoint(tx: SqlExecutor, advance: CheckpointAdvance): Promise<number> {
    if (!advance.done) {
      const changed = await tx.run(
        `UPDATE sync_windows SET cursor = ?, pages = pages + ?, items = items + ?, updated_at = ? WHERE ${WINDOW_KEY_WHERE}`,
        [advance.cursor, advance.pages, advance.items, advance.now, ...windowKeyParams(advance.key)],
      );
      if (changed !== 1) throw new Error(`commitPage: no window ${describeKey(advance.key)}`);
      return 0;
    }
    const window = await this.#window(tx, advance.key);
    const passFrom = window.passFrom ?? window.windowStart;
    const passTo = window.passTo ?? window.windowEnd;
    await tx.run(
      `UPDATE sync_windows SET status = 'done', cursor = NULL, pages = pages + ?, items = items + ?, synced_to = ?, updated_at = ?
       WHERE ${WINDOW_KEY_WHERE}`,
      [advance.pages, advance.items, passTo, advance.now, ...windowKeyParams(advance.key)],
    );
    // Without a recorded pass start nothing tells seen from unseen; mark nothing.
    if (window.passStartedAt === null) return 0;
    return tx.run(
      `UPDATE ${sessionTable(advance.key.resource).name} SET missing_since = ?
       WHERE account = ? AND created_epoch >= ? AND created_epoch < ? AND last_synced_at < ? AND missing_since IS NULL`,
      [advance.now, advance.key.account, passFrom, passTo, window.passStartedAt],
    );
  }
}

function sessionTable(resource: Resource): TableDef {
  if (!RESOURCES.includes(resource)) throw new Error(`unknown resource ${String(resource)}`);
  return table(resource);
}

function describeKey(key: WindowKey): string {
  return `${key.account}/${key.resource}/v${key.apiVersion}@${key.windowStart}`;
}

function newWindowRow(w: WindowSpec, now: string): Row {
  return {
    account: w.account,
    resource: w.resource,
    api_version: w.apiVersion,
    window_start: w.windowStart,
    window_end: w.windowEnd,
    status: 'pending',
    cursor: null,
    pages: 0,
    items: 0,
    attempts: 0,
    error: null,
    updated_at: now,
    pass_from: null,
    pass_to: null,
    pass_started_at: null,
    synced_to: null,
  };
}

/** The parts of a split must tile [from, to) exactly, in any order, each under the same account, resource and interface. */
function assertPartition(parts: readonly WindowSpec[], key: WindowKey, from: number, to: number): void {
  const sorted = [...parts].sort((a, b) => a.windowStart - b.windowStart);
  let at = from;
  for (const p of sorted) {
    if (p.account !== key.account || p.resource !== key.resource || p.apiVersion !== key.apiVersion || p.windowStart !== at || p.windowEnd <= at) {
      throw new Error(`splitWindow: parts do not partition [${from}, ${to}) of ${describeKey(key)}`);
    }
    at = p.windowEnd;
  }
  if (at !== to) throw new Error(`splitWindow: parts do not partition [${from}, ${to}) of ${describeKey(key)}`);
}

/** The last row wins per primary key: a statement may not touch one key twice. */
function uniqueByKey(def: TableDef, rows: readonly Row[]): Row[] {
  if (rows.length < 2) return [...rows];
  const byKey = new Map<string, Row>();
  for (const row of rows) byKey.set(def.primaryKey.map((c) => String(row[c])).join('\u0000'), row);
  return byKey.size === rows.length ? [...rows] : [...byKey.values()];
}

function windowState(r: Record<string, unknown>): WindowState {
  return {
    account: String(r.account),
    resource: r.resource as Resource,
    apiVersion: r.api_version as ApiVersion,
    windowStart: Number(r.window_start),
    windowEnd: Number(r.window_end),
    status: r.status as WindowStatus,
    cursor: stringOrNull(r.cursor),
    pages: Number(r.pages),
    items: Number(r.items),
    attempts: Number(r.attempts),
    error: stringOrNull(r.error),
    updatedAt: String(r.updated_at),
    passFrom: numberOrNull(r.pass_from),
    passTo: numberOrNull(r.pass_to),
    passStartedAt: stringOrNull(r.pass_started_at),
    syncedTo: numberOrNull(r.synced_to),
  };
}

function leaseState(r: Record<string, unknown>, caller: string | null): LeaseState {
  return {
    name: String(r.name),
    holder: String(r.holder),
    acquiredAt: String(r.acquired_at),
    heartbeatAt: String(r.heartbeat_at),
    held: caller !== null && r.holder === caller,
  };
}

function numberOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

function stringOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}
