import { toIsoMicros } from '../normalize/time.js';
import { readRow } from '../store/row-reader.js';
import { table } from '../schema/schema.js';
import type { SnapshotSource } from './status-snapshot.js';
import { windowState, type WindowState } from './window-state.js';

export interface RunDetail {
  run: Record<string, unknown>;
  /** Windows of the run's account(s) that changed while it ran, with their pages and items of the current pass. */
  windows: Array<{
    account: string;
    resource: string;
    start: number;
    end: number;
    state: WindowState;
    pages: number;
    items: number;
    error: string | null;
  }>;
  pages: number;
  /** The refresh budget of the run and what it spent; null without a refresh. */
  refresh: { budget: number; spent: number } | null;
  /** What a verify run found (the first 200). */
  findings: Array<Record<string, unknown>>;
}

/** A run as the tables hold it: its row, the windows it touched, its refresh spend and its verify findings. */
export async function readRunDetail(
  source: Pick<SnapshotSource, 'query'>,
  id: string,
  now: number,
): Promise<RunDetail | undefined> {
  const [sync] = await source.query('SELECT * FROM sync_runs WHERE id = ?', [id]);
  const [verify] = sync === undefined ? await source.query('SELECT * FROM verify_runs WHERE id = ?', [id]) : [];
  if (sync === undefined && verify === undefined) return undefined;
  const run =
    sync !== undefined
      ? readRow(table('sync_runs'), sync)
      : { ...readRow(table('verify_runs'), verify!), command: 'verify' };
  const until = (run.finished_at as string | null) ?? toIsoMicros(now / 1000);
  const account = run.account as string | null;
  const def = table('sync_windows');
  const rows = await source.query(
    `SELECT account, resource, window_start, window_end, status, pages, items, error, synced_to FROM sync_windows
     WHERE updated_at >= ? AND updated_at <= ? ${account === null ? '' : 'AND account = ?'}
     ORDER BY account, resource, window_start LIMIT 2000`,
    [run.started_at, until, ...(account === null ? [] : [account])],
  );
  const windows = rows.map((raw) => {
    const r = readRow(def, raw);
    return {
      account: r.account as string,
      resource: r.resource as string,
      start: r.window_start as number,
      end: r.window_end as number,
      state: windowState(r.status as string, r.synced_to as number | null),
      pages: r.pages as number,
      items: r.items as number,
      error: r.error as string | null,
    };
  });
  const budget = run.refresh_budget as number | null | undefined;
  const findingDef = table('verify_findings');
  const findings =
    verify === undefined
      ? []
      : (await source.query('SELECT * FROM verify_findings WHERE run_id = ? ORDER BY seq LIMIT 200', [id])).map((f) =>
          readRow(findingDef, f),
        );
  return {
    run,
    windows,
    pages: windows.reduce((sum, w) => sum + w.pages, 0),
    refresh:
      budget === null || budget === undefined ? null : { budget, spent: (run.refresh_spent as number | null) ?? 0 },
    findings,
  };
}
