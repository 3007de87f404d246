import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ): 100 on Linux. */
const TICKS_PER_SECOND = 100;

/** What the processes of a local server amount to at one moment. */
export interface ServerReading {
  /**
   * CPU milliseconds so far, with what the processes collected of their ended
   * children: the postmaster collects every backend that ended, so a
   * difference of two readings counts a run's connections whether or not they
   * are still open.
   */
  cpuMs: number;
  /** How many processes there are. */
  processes: number;
}

/**
 * Every process on this machine whose command is `name` (a local
 * PostgreSQL: `postgres`), read from /proc. Null where /proc cannot be read
 * (no Linux) or no such process is visible: the server is not on this
 * machine, or not this user's to read.
 */
export function readLocalServer(name = 'postgres'): ServerReading | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return null;
  }
  let ticks = 0;
  let processes = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // "pid (comm) state ...": comm may hold spaces, so the fields are counted from its closing parenthesis.
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== name) continue;
      const fields = stat.slice(close + 2).split(' ');
      // utime, stime, cutime, cstime: fields 14-17 of stat(5), 12-15 after "pid (comm) ".
      for (const at of [11, 12, 13, 14]) ticks += Number(fields[at]);
      processes++;
    } catch {
      // The process ended meanwhile.
    }
  }
  return processes > 0 ? { cpuMs: (ticks * 1000) / TICKS_PER_SECOND, processes } : null;
}

/**
 * The server's CPU milliseconds once its processes are no more than they were
 * `before` a client's connections opened: a backend's CPU reaches its
 * postmaster only when the postmaster collects it, a moment after the client
 * that used it closed. Waits at most `waitMs`.
 */
export async function localServerCpuMsAfter(
  before: ServerReading,
  name = 'postgres',
  waitMs = 5_000,
): Promise<number | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const reading = readLocalServer(name);
    if (reading === null) return null;
    if (reading.processes <= before.processes || Date.now() >= deadline) return reading.cpuMs;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
