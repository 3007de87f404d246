/** One row of `sync_runs` written by a daemon of the fleet. */
export interface FleetRun {
  account: string;
  /** Index of the daemon that ran it. */
  daemon: number;
  startedMs: number;
  finishedMs: number | null;
  status: string;
  requests: number;
}

export interface TickCounts {
  /** Ticks counted. */
  ticks: number;
  /** Account-ticks counted, and how many had exactly one run, none, two or more. */
  accountTicks: number;
  once: number;
  none: number;
  twiceOrMore: number;
  /** Runs per live daemon per tick: least, median, most. */
  perDaemon: [number, number, number];
}

export interface FleetFigures {
  before: TickCounts;
  after: TickCounts;
  /** Accounts the killed daemon ran in its last whole tick, or had in flight when killed. */
  orphans: number;
  /** Its runs in flight when killed: their account leases stay held until the ttl. */
  inFlight: number;
  /** From the kill to the first successful sync by another daemon of the accounts in flight: the most, seconds. */
  inFlightTakeoverSeconds: number;
  /** From a tick's scheduled time to the end of its daemon's last run in it: median and most, seconds. */
  busySeconds: [number, number];
  /** From the kill to the end of each orphan's first successful run by another daemon: median and most, seconds. */
  takeoverSeconds: [number, number];
  /** Orphans no other daemon synced by the end. */
  neverTakenOver: number;
  /** Requests per account per tick: median, most; and the most as a share of the account's budget for a tick. */
  requestsPerAccountTick: [number, number];
  budgetShareMax: number;
  statuses: Record<string, number>;
  /** Account-ticks with two runs or more: each run's daemon and its start, seconds after the tick's scheduled time. */
  doubles: Array<{ account: string; tick: number; runs: Array<{ daemon: number; startSeconds: number }> }>;
  /** From a tick's scheduled time to its runs' starts, seconds: median and most (a late claim lands in the next). */
  startSeconds: [number, number];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Runs of ticks `from`..`to` (tick = start time over the period: the
 * schedule fires on multiples of it, and a run claimed after the grace still
 * starts within its tick), per account and per daemon of `live`.
 */
export function tickCounts(
  runs: readonly FleetRun[],
  accounts: readonly string[],
  live: readonly number[],
  periodMs: number,
  from: number,
  to: number,
): TickCounts {
  const counts = { ticks: 0, accountTicks: 0, once: 0, none: 0, twiceOrMore: 0 };
  const perDaemon: number[] = [];
  for (let tick = from; tick <= to; tick++) {
    const inTick = runs.filter((r) => Math.floor(r.startedMs / periodMs) === tick);
    counts.ticks++;
    for (const account of accounts) {
      const n = inTick.filter((r) => r.account === account).length;
      counts.accountTicks++;
      if (n === 1) counts.once++;
      else if (n === 0) counts.none++;
      else counts.twiceOrMore++;
    }
    for (const d of live) perDaemon.push(inTick.filter((r) => r.daemon === d).length);
  }
  const sorted = [...perDaemon].sort((a, b) => a - b);
  return { ...counts, perDaemon: [sorted[0] ?? 0, median(sorted), sorted.at(-1) ?? 0] };
}

export interface FigureInputs {
  runs: readonly FleetRun[];
  accounts: readonly string[];
  daemons: number;
  periodMs: number;
  killed: { daemon: number; atMs: number };
  /** First and last tick counted (both whole: after every daemon started, before the stop). */
  firstTick: number;
  lastTick: number;
  /** Requests an account may make in one tick: its rate times the period. */
  budgetPerTick: number;
}

export function fleetFigures(i: FigureInputs): FleetFigures {
  const killTick = Math.floor(i.killed.atMs / i.periodMs);
  const all = [...Array(i.daemons).keys()];
  const survivors = all.filter((d) => d !== i.killed.daemon);
  const before = tickCounts(i.runs, i.accounts, all, i.periodMs, i.firstTick, killTick - 1);
  const after = tickCounts(i.runs, i.accounts, survivors, i.periodMs, killTick + 1, i.lastTick);

  const killed = i.runs.filter((r) => r.daemon === i.killed.daemon);
  const inFlight = [
    ...new Set(
      killed
        .filter((r) => r.startedMs <= i.killed.atMs && (r.finishedMs === null || r.finishedMs > i.killed.atMs))
        .map((r) => r.account),
    ),
  ];
  const lastWhole = killed.filter((r) => Math.floor(r.startedMs / i.periodMs) === killTick - 1).map((r) => r.account);
  const orphans = [...new Set([...lastWhole, ...inFlight])];
  const takeoverOf = (account: string): number | undefined => {
    const next = i.runs
      .filter(
        (r) =>
          r.account === account &&
          r.daemon !== i.killed.daemon &&
          r.status === 'succeeded' &&
          r.startedMs > i.killed.atMs &&
          r.finishedMs !== null,
      )
      .sort((a, b) => a.finishedMs! - b.finishedMs!)[0];
    return next ? (next.finishedMs! - i.killed.atMs) / 1000 : undefined;
  };
  const takeovers = orphans.map(takeoverOf).filter((t): t is number => t !== undefined);
  const inFlightTakeovers = inFlight.map(takeoverOf).filter((t): t is number => t !== undefined);

  // How long each daemon's tick kept it busy: a tick longer than the period makes the schedule skip the next.
  const busy = new Map<string, number>();
  for (const r of i.runs) {
    const tick = Math.floor(r.startedMs / i.periodMs);
    if (r.finishedMs === null || tick < i.firstTick || tick > i.lastTick) continue;
    const key = `${r.daemon} ${tick}`;
    busy.set(key, Math.max(busy.get(key) ?? 0, (r.finishedMs - tick * i.periodMs) / 1000));
  }

  const perAccountTick = new Map<string, number>();
  for (const r of i.runs) {
    const key = `${r.account} ${Math.floor(r.startedMs / i.periodMs)}`;
    perAccountTick.set(key, (perAccountTick.get(key) ?? 0) + r.requests);
  }
  const requests = [...perAccountTick.values()];
  const most = Math.max(0, ...requests);
  const doubles: FleetFigures['doubles'] = [];
  const byAccountTick = new Map<string, FleetRun[]>();
  for (const r of i.runs) {
    const tick = Math.floor(r.startedMs / i.periodMs);
    if (tick < i.firstTick || tick > i.lastTick) continue;
    const key = `${r.account} ${tick}`;
    byAccountTick.set(key, [...(byAccountTick.get(key) ?? []), r]);
  }
  for (const [key, list] of byAccountTick) {
    if (list.length < 2) continue;
    const tick = Number(key.split(' ')[1]);
    const runs = list.map((r) => ({ daemon: r.daemon, startSeconds: (r.startedMs - tick * i.periodMs) / 1000 }));
    doubles.push({ account: list[0]!.account, tick, runs });
  }
  const starts = i.runs.map((r) => (r.startedMs % i.periodMs) / 1000);
  const statuses: Record<string, number> = {};
  for (const r of i.runs) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  return {
    before,
    after,
    orphans: orphans.length,
    inFlight: inFlight.length,
    takeoverSeconds: [median(takeovers), Math.max(0, ...takeovers)],
    inFlightTakeoverSeconds: Math.max(0, ...inFlightTakeovers),
    busySeconds: [median([...busy.values()]), Math.max(0, ...busy.values())],
    neverTakenOver: orphans.length - takeovers.length,
    requestsPerAccountTick: [median(requests), most],
    budgetShareMax: most / i.budgetPerTick,
    statuses,
    doubles,
    startSeconds: [median(starts), Math.max(0, ...starts)],
  };
}
