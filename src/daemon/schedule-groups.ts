/** A cron schedule and the accounts that follow it. */
export interface ScheduleGroup {
  expression: string;
  timezone: string;
  accounts: string[];
}

/**
 * Groups accounts by their schedule: each group gets one node-cron task,
 * whose ticks claim and sync its accounts alone. Accounts with no schedule
 * of their own, or one equal to the daemon's, follow the daemon's. Groups
 * keep the order of their first account; accounts keep theirs.
 */
export function scheduleGroups(
  accounts: readonly string[],
  fallback: { expression: string; timezone: string },
  own: ReadonlyMap<string, { expression: string; timezone: string }> = new Map(),
): ScheduleGroup[] {
  const groups = new Map<string, ScheduleGroup>();
  for (const account of accounts) {
    const { expression, timezone } = own.get(account) ?? fallback;
    const key = `${expression}\u0000${timezone}`;
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { expression, timezone, accounts: [] }));
    group.accounts.push(account);
  }
  return [...groups.values()];
}
