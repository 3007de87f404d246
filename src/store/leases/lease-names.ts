/**
 * Names of the rows in `sync_leases`. One namespace per purpose, so a listing
 * tells at a glance who syncs what.
 */

/** Held while a process syncs or backfills an account into the target. */
export function accountLease(account: string): string {
  return `account:${account}`;
}

/** Claimed by the daemon that runs an account's scheduled sync of one tick. */
export function tickLease(account: string): string {
  return `tick:${account}`;
}

/** Held by each running daemon, so daemons can count each other. */
export function daemonLease(holder: string): string {
  return `daemon:${holder}`;
}

export const DAEMON_LEASE_PREFIX = 'daemon:';

/** `host:pid:runId`: where to look for the process that holds a lease. */
export function holderId(host: string, pid: number, runId: string): string {
  return `${host}:${pid}:${runId}`;
}

/** The parts of a holder id; null when it is not `host:pid:runId`. */
export function parseHolder(holder: string): { host: string; pid: number; runId: string } | null {
  const m = /^(.*):(\d+):([^:]+)$/.exec(holder);
  return m ? { host: m[1]!, pid: Number(m[2]), runId: m[3]! } : null;
}

/**
 * A holder that certainly died: it ran on this host and its process is gone.
 * Its lease is taken over at once instead of after the ttl, so re-running a
 * command that was killed (SIGKILL, OOM, a crash) resumes immediately.
 * `pidAlive` answers for this host only; a holder on another host is never
 * judged dead here (its heartbeat tells).
 */
export function deadOnThisHost(
  thisHost: string,
  thisPid: number,
  pidAlive: (pid: number) => boolean,
): (holder: string) => boolean {
  return (holder) => {
    const parsed = parseHolder(holder);
    if (!parsed || parsed.host !== thisHost || parsed.pid === thisPid) return false;
    return !pidAlive(parsed.pid);
  };
}
