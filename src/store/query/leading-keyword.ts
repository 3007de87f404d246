/** Statements that only read, by their first word, where the database cannot tell (Postgres). */
export const READING_KEYWORDS: ReadonlySet<string> = new Set(['SELECT', 'WITH', 'EXPLAIN', 'VALUES', 'TABLE', 'SHOW']);

/**
 * The first word of a statement, upper-cased, past blanks, comments (`--`,
 * `/* *\/`) and opening parentheses; '' when there is none. A read-only
 * transaction refuses writes to tables but not `COPY ... TO 'file'`, which a
 * superuser's session would run: so Postgres statements are also held to
 * READING_KEYWORDS. A write hidden inside one (a data-modifying WITH) still
 * meets the read-only transaction.
 */
export function leadingKeyword(sql: string): string {
  let rest = sql;
  for (;;) {
    const trimmed = rest.replace(/^[\s(]+/, '');
    if (trimmed.startsWith('--')) {
      const end = trimmed.indexOf('\n');
      rest = end < 0 ? '' : trimmed.slice(end + 1);
    } else if (trimmed.startsWith('/*')) {
      const end = trimmed.indexOf('*/');
      rest = end < 0 ? '' : trimmed.slice(end + 2);
    } else {
      return (/^[A-Za-z_]+/.exec(trimmed)?.[0] ?? '').toUpperCase();
    }
  }
}
