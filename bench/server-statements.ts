import pg from 'pg';

/**
 * Where a PostgreSQL server spent its statements' time during a run, read
 * from pg_stat_statements when the server loads it (`shared_preload_libraries`)
 * and the database has the extension: a Postgres figure says how fast, this
 * says which of ivsync's statements (or the server's own work on them, COPY,
 * VACUUM, ANALYZE) set it. A server without it gives no line.
 */
export interface StatementCounter {
  /** The statement as the server normalized it, whitespace folded. */
  query: string;
  calls: number;
  totalMs: number;
}

export interface StatementShare {
  /** The statement's first words, enough to tell it: `COPY authentications`, `SELECT service_id FROM …`. */
  label: string;
  calls: number;
  totalMs: number;
  /** Of the time every statement took in the run. */
  share: number;
}

/** The server's counters per statement of the connected database, or null without pg_stat_statements. */
export async function statementCounters(url: string): Promise<Map<string, StatementCounter> | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; query: string; calls: string; ms: number }>(
      "SELECT queryid::text || ':' || userid::text AS id, query, calls::text AS calls, total_exec_time AS ms " +
        'FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())',
    );
    const counters = new Map<string, StatementCounter>();
    for (const row of rows)
      counters.set(row.id, { query: row.query.replace(/\s+/g, ' ').trim(), calls: Number(row.calls), totalMs: row.ms });
    return counters;
  } catch {
    // Not installed here, or not loaded by the server: the run goes on without the line.
    return null;
  } finally {
    await client.end();
  }
}

/**
 * The words that tell a statement apart: COPY, VACUUM and ANALYZE with their table; another statement's first
 * `width` characters and, where that cut it, the first table it reads (`… FROM authentications`), since the
 * reads of the two session tables begin alike.
 */
export function statementLabel(query: string, width = 56): string {
  const copy = /^COPY\s+"?([\w.]+)"?/i.exec(query);
  if (copy) return `COPY ${copy[1]!}`;
  const maintenance = /^(VACUUM|ANALYZE)\b.*?"?(\w+)"?\s*(\(|$)/i.exec(query);
  if (maintenance) return `${maintenance[1]!.toUpperCase()} ${maintenance[2]!}`;
  if (query.length <= width) return query;
  const table = /\bFROM\s+"?(\w+)/i.exec(query.slice(width));
  return `${query.slice(0, width)}…${table ? ` FROM ${table[1]!}` : ''}`;
}

/**
 * The statements that took the most time between two readings, largest first, each with its share of all the
 * time the statements took.
 */
export function topStatements(
  before: ReadonlyMap<string, StatementCounter> | null,
  after: ReadonlyMap<string, StatementCounter> | null,
  count: number,
): StatementShare[] {
  if (before === null || after === null) return [];
  const spent: Array<{ label: string; calls: number; totalMs: number }> = [];
  let all = 0;
  for (const [id, now] of after) {
    const then = before.get(id);
    const calls = now.calls - (then?.calls ?? 0);
    const totalMs = now.totalMs - (then?.totalMs ?? 0);
    // A reset between the readings, or a statement evicted and counted anew: take what the second reading holds.
    const own = calls >= 0 && totalMs >= 0 ? { calls, totalMs } : { calls: now.calls, totalMs: now.totalMs };
    if (own.calls === 0) continue;
    all += own.totalMs;
    spent.push({ label: statementLabel(now.query), ...own });
  }
  return spent
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, count)
    .map((s) => ({ ...s, share: all > 0 ? s.totalMs / all : 0 }));
}

/** One line: the statements' shares, each with its mean time and calls. */
export function statementsLine(top: readonly StatementShare[]): string {
  return top
    .map(
      (s) =>
        `${s.label} ${(s.share * 100).toFixed(1)}% (${(s.totalMs / s.calls).toFixed(2)} ms × ` +
        `${s.calls.toLocaleString('en-US')})`,
    )
    .join('; ');
}
