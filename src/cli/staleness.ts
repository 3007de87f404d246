import { refreshSaved } from '../crawl/refresh/refresh-spend.js';
import { summarizeLags, type LagSummary } from '../store/runs/lag-summary.js';
import type { RefreshSpend, RefreshTierState, StatusReport } from '../store/sink.js';
import { renderTable } from './text-table.js';

/** Ages in whole seconds of the last checks of a tier's sessions: nearest-rank percentiles and the oldest. */
export interface CheckAges {
  p50: number | null;
  p95: number | null;
  max: number | null;
}

export type RefreshRow = RefreshTierState & { oldestCheckAgeSeconds: number | null; checkAgeSeconds: CheckAges };

type Tier = 'hot' | 'backoff' | 'unchecked';

const ageOf = (iso: string | null, nowEpoch: number): number | null =>
  iso === null ? null : Math.round(nowEpoch - Date.parse(iso) / 1000);

/** The refresh tiers with the age of their last checks, in seconds, as of `nowEpoch`. */
export function refreshRows(report: Pick<StatusReport, 'refresh'>, nowEpoch: number): RefreshRow[] {
  return report.refresh.map((r) => {
    const max = ageOf(r.oldestCheckAt, nowEpoch);
    const checkAgeSeconds = { p50: ageOf(r.p50CheckAt, nowEpoch), p95: ageOf(r.p95CheckAt, nowEpoch), max };
    return { ...r, oldestCheckAgeSeconds: max, checkAgeSeconds };
  });
}

/** One account and resource: its non-final sessions per tier with their check ages, and its recent observed lag. */
export interface StalenessLine {
  account: string;
  resource: string;
  tiers: Record<Tier, { sessions: number; checkAgeSeconds: CheckAges } | null>;
  /** Null: no dated change stored yet. */
  changeLag: LagSummary | null;
}

export function stalenessLines(
  report: Pick<StatusReport, 'refresh' | 'changeLags'>,
  nowEpoch: number,
): StalenessLine[] {
  const lines = new Map<string, StalenessLine>();
  const lineOf = (account: string, resource: string): StalenessLine => {
    const key = `${account}\u0000${resource}`;
    let line = lines.get(key);
    if (!line) {
      line = { account, resource, tiers: { hot: null, backoff: null, unchecked: null }, changeLag: null };
      lines.set(key, line);
    }
    return line;
  };
  for (const r of refreshRows(report, nowEpoch)) {
    lineOf(r.account, r.resource).tiers[r.tier] = { sessions: r.sessions, checkAgeSeconds: r.checkAgeSeconds };
  }
  for (const lag of summarizeLags(report.changeLags)) lineOf(lag.account, lag.resource).changeLag = lag;
  return [...lines.values()].sort((a, b) => (a.account + a.resource < b.account + b.resource ? -1 : 1));
}

const cell = (tier: StalenessLine['tiers'][keyof StalenessLine['tiers']]): string => {
  if (tier === null) return '-';
  const { p50, p95, max } = tier.checkAgeSeconds;
  return `${tier.sessions}: ${p50 ?? '-'}/${p95 ?? '-'}/${max ?? '-'}`;
};

const round = (seconds: number): string => (seconds < 10 ? seconds.toFixed(1) : String(Math.round(seconds)));

const lagText = (lag: LagSummary | null): string =>
  lag === null ? '-' : `${round(lag.p50Seconds)}/${round(lag.p95Seconds)} (${lag.changes} changes)`;

/** One line per account and resource. */
export function renderStaleness(lines: readonly StalenessLine[]): string {
  return (
    'Staleness of non-final sessions: per tier, sessions: age of the last check p50/p95/max (s);' +
    ' observed lag of the latest changes p50/p95 (s)\n' +
    renderTable(
      ['account', 'resource', 'hot', 'backoff', 'unchecked', 'observed lag'],
      lines.map((l) => [
        l.account,
        l.resource,
        cell(l.tiers.hot),
        cell(l.tiers.backoff),
        cell(l.tiers.unchecked),
        lagText(l.changeLag),
      ]),
    )
  );
}

/** A run's refresh spending as `status` shows it: spent of the budget, and saved. */
export function spendText(spend: RefreshSpend | null): string {
  return spend === null ? '-' : `${spend.spent}/${spend.budget} (${refreshSaved(spend)} saved)`;
}

/** The same in --json: budget, spent and saved requests. */
export function spendJson(spend: RefreshSpend | null): (RefreshSpend & { saved: number }) | null {
  return spend === null ? null : { ...spend, saved: refreshSaved(spend) };
}
