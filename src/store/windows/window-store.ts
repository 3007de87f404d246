import { parseCursorText } from '../../api/cursor.js';
import type { ApiVersion, Resource } from '../../normalize/rows.js';
import { rowReader } from '../row-reader.js';
import { table } from '../../schema/schema.js';
import type {
  PassSpec,
  ReopenedWindows,
  ReopenScope,
  WindowKey,
  WindowQuery,
  WindowSpec,
  WindowState,
  WindowStatus,
  WindowStore,
} from '../sink.js';
import { placeholders } from '../drivers/placeholders.js';
import type { Row, SqlDriver, SqlExecutor } from '../drivers/sql-driver.js';
import { uniqueByKey } from '../pages/unique-by-key.js';

export const WINDOWS = table('sync_windows');
const KEY_WHERE = 'account = ? AND resource = ? AND api_version = ? AND window_start = ?';
const keyParams = (key: WindowKey): unknown[] => [key.account, key.resource, key.apiVersion, key.windowStart];

export function describeKey(key: WindowKey): string {
  return `${key.account}/${key.resource}/v${key.apiVersion}@${key.windowStart}`;
}

/**
 * The crawl's bookkeeping in `sync_windows`: which windows exist, how far
 * each pass got (its checkpoint), and which are done or sealed.
 */
export class SqlWindowStore implements WindowStore {
  readonly #driver: SqlDriver;
  readonly #now: () => string;

  /** @param now the time of writes whose method takes none (planWindows) */
  constructor(driver: SqlDriver, now: () => string) {
    this.#driver = driver;
    this.#now = now;
  }

  async planWindows(windows: readonly WindowSpec[]): Promise<void> {
    if (windows.length === 0) return;
    const now = this.#now();
    await this.#driver.transaction((tx) =>
      tx.write(
        WINDOWS,
        uniqueByKey(
          WINDOWS,
          windows.map((w) => newWindowRow(w, now)),
        ),
        'ignore',
      ),
    );
  }

  async listWindows(query: WindowQuery): Promise<WindowState[]> {
    if (query.status !== undefined && query.status.length === 0) return [];
    const { where, params } = windowsWhere(query);
    const rows = await this.#driver.read((tx) =>
      tx.all(`SELECT * FROM sync_windows WHERE ${where} ORDER BY window_start DESC`, params),
    );
    return rows.map(windowState);
  }

  async startPass(key: WindowKey, pass: PassSpec): Promise<void> {
    await this.#driver.transaction(async (tx) => {
      // Every write of a window holds its account's lock: a commit group reads its windows and writes them back.
      await tx.lock({ account: [key.account] });
      const changed = await tx.run(
        `UPDATE sync_windows SET status = 'running', cursor = NULL, pages = 0, items = 0, attempts = attempts + 1, ` +
          `error = NULL,
           updated_at = ?, pass_from = ?, pass_to = ?, pass_started_at = ? WHERE ${KEY_WHERE}`,
        [pass.startedAt, pass.passFrom, pass.passTo, pass.startedAt, ...keyParams(key)],
      );
      if (changed !== 1) throw new Error(`startPass: no window ${describeKey(key)}`);
    });
  }

  async splitWindow(key: WindowKey, keepFrom: number, parts: readonly WindowSpec[], now: string): Promise<void> {
    await this.#driver.transaction(async (tx) => {
      await tx.lock({ account: [key.account] });
      const window = await readWindow(tx, key);
      if (keepFrom <= window.windowStart || keepFrom >= window.windowEnd) {
        throw new Error(
          `splitWindow: ${keepFrom} is not inside ${describeKey(key)} [${window.windowStart}, ${window.windowEnd})`,
        );
      }
      assertPartition(parts, key, window.windowStart, keepFrom);
      const passFrom = window.passFrom === null ? keepFrom : Math.max(window.passFrom, keepFrom);
      const passTo = Math.min(window.passTo ?? window.windowEnd, window.windowEnd);
      await tx.run(
        `UPDATE sync_windows SET window_start = ?, status = 'done', cursor = NULL, pass_from = ?, pass_to = ?, ` +
          `synced_to = ?, updated_at = ?
         WHERE ${KEY_WHERE}`,
        [keepFrom, passFrom, passTo, Math.max(passTo, window.syncedTo ?? passTo), now, ...keyParams(key)],
      );
      await tx.write(
        WINDOWS,
        parts.map((p) => newWindowRow(p, now)),
        'ignore',
      );
    });
  }

  async markWindow(key: WindowKey, status: WindowStatus, error: string | null, now: string): Promise<void> {
    await this.#driver.transaction((tx) => markWindowIn(tx, key, status, error, now));
  }

  async highWaterMark(account: string, resource: Resource, apiVersion: ApiVersion): Promise<number | null> {
    const [row] = await this.#driver.read((tx) =>
      tx.all(
        'SELECT MAX(synced_to) AS synced_to FROM sync_windows WHERE account = ? AND resource = ? AND api_version = ?',
        [account, resource, apiVersion],
      ),
    );
    return row ? rowReader(WINDOWS, row).numberOrNull('synced_to') : null;
  }

  async reopenWindows(scope: ReopenScope, now: string): Promise<ReopenedWindows> {
    const where = ['account = ?', 'resource = ?'];
    const params: unknown[] = [scope.account, scope.resource];
    if (scope.from !== undefined) {
      where.push('window_end > ?');
      params.push(scope.from);
    }
    if (scope.to !== undefined) {
      where.push('window_start < ?');
      params.push(scope.to);
    }
    const clause = where.join(' AND ');
    return this.#driver.transaction(async (tx) => {
      // The count and the update see the same rows.
      await tx.lock({ account: [scope.account] });
      const [row] = await tx.all(
        `SELECT COUNT(*) AS windows, SUM(CASE WHEN status = 'sealed' THEN 1 ELSE 0 END) AS sealed, ` +
          `MIN(window_start) AS range_from, MAX(window_end) AS range_to
         FROM sync_windows WHERE ${clause}`,
        params,
      );
      // The same rows a pass would leave behind when it starts over: the next crawl cannot resume an old cursor.
      await tx.run(
        `UPDATE sync_windows SET status = 'pending', cursor = NULL, error = NULL, updated_at = ? WHERE ${clause}`,
        [now, ...params],
      );
      const count = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
      return {
        account: scope.account,
        resource: scope.resource,
        windows: count(row?.windows),
        sealed: count(row?.sealed),
        from: row?.range_from === null || row?.range_from === undefined ? null : Number(row.range_from),
        to: row?.range_to === null || row?.range_to === undefined ? null : Number(row.range_to),
      };
    });
  }
}

/**
 * The WHERE clause (without the keyword) of the sync_windows rows a query names; `alias` qualifies the columns (`w.`).
 */
export function windowsWhere(query: WindowQuery, alias = ''): { where: string; params: unknown[] } {
  const where = [`${alias}account = ?`, `${alias}resource = ?`, `${alias}api_version = ?`];
  const params: unknown[] = [query.account, query.resource, query.apiVersion];
  if (query.from !== undefined) {
    where.push(`${alias}window_end > ?`);
    params.push(query.from);
  }
  if (query.to !== undefined) {
    where.push(`${alias}window_start < ?`);
    params.push(query.to);
  }
  if (query.status !== undefined && query.status.length > 0) {
    where.push(`${alias}status IN (${placeholders(query.status.length)})`);
    params.push(...query.status);
  }
  return { where: where.join(' AND '), params };
}

/** Sets a window's status and error inside the caller's transaction. */
export async function markWindowIn(
  tx: SqlExecutor,
  key: WindowKey,
  status: WindowStatus,
  error: string | null,
  now: string,
): Promise<void> {
  await tx.lock({ account: [key.account] });
  const changed = await tx.run(`UPDATE sync_windows SET status = ?, error = ?, updated_at = ? WHERE ${KEY_WHERE}`, [
    status,
    error,
    now,
    ...keyParams(key),
  ]);
  if (changed !== 1) throw new Error(`markWindow: no window ${describeKey(key)}`);
}

async function readWindow(tx: SqlExecutor, key: WindowKey): Promise<WindowState> {
  const [row] = await tx.all(`SELECT * FROM sync_windows WHERE ${KEY_WHERE}`, keyParams(key));
  if (!row) throw new Error(`no window ${describeKey(key)}`);
  return windowState(row);
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

/**
 * The parts of a split must tile [from, to) exactly, in any order, each under the same account, resource and interface.
 */
function assertPartition(parts: readonly WindowSpec[], key: WindowKey, from: number, to: number): void {
  const sorted = [...parts].sort((a, b) => a.windowStart - b.windowStart);
  let at = from;
  for (const p of sorted) {
    if (
      p.account !== key.account ||
      p.resource !== key.resource ||
      p.apiVersion !== key.apiVersion ||
      p.windowStart !== at ||
      p.windowEnd <= at
    ) {
      throw new Error(`splitWindow: parts do not partition [${from}, ${to}) of ${describeKey(key)}`);
    }
    at = p.windowEnd;
  }
  if (at !== to) throw new Error(`splitWindow: parts do not partition [${from}, ${to}) of ${describeKey(key)}`);
}

function windowState(row: Record<string, unknown>): WindowState {
  const r = rowReader(WINDOWS, row);
  return {
    account: r.text('account'),
    resource: r.text('resource') as Resource,
    apiVersion: r.text('api_version') as ApiVersion,
    windowStart: r.number('window_start'),
    windowEnd: r.number('window_end'),
    status: r.text('status') as WindowStatus,
    cursor: parseCursorText(r.textOrNull('cursor')),
    pages: r.number('pages'),
    items: r.number('items'),
    attempts: r.number('attempts'),
    error: r.textOrNull('error'),
    updatedAt: r.text('updated_at'),
    passFrom: r.numberOrNull('pass_from'),
    passTo: r.numberOrNull('pass_to'),
    passStartedAt: r.textOrNull('pass_started_at'),
    syncedTo: r.numberOrNull('synced_to'),
  };
}
