/** The targets whose columns can change type in place (SQLite cannot). */
export type RetypeDialect = 'postgres' | 'duckdb';

const ALIASES: Readonly<Record<string, string>> = {
  'timestamp with time zone': 'timestamptz',
  varchar: 'text',
  'character varying': 'text',
};

/**
 * Canonical spelling of a SQL type, so a catalog's name ('TIMESTAMP WITH TIME ZONE') matches the DDL's ('TIMESTAMPTZ').
 */
function canonical(type: string): string {
  const lower = type.trim().toLowerCase();
  return ALIASES[lower] ?? lower;
}

export function sameSqlType(a: string, b: string): boolean {
  return canonical(a) === canonical(b);
}

/**
 * The `USING` expression that converts `column` from `from` to `to`. Text
 * becomes a timestamp by the ordinary cast, which reads the stored ISO 8601
 * text (zone `Z`) exactly, microseconds included. A timestamp becomes text in
 * the form ivsync stores in SQLite (`2026-01-02T03:04:05.123456Z`), not in the
 * target's own output form, so reverting gives back the text it converted.
 */
export function retypeExpression(dialect: RetypeDialect, column: string, from: string, to: string): string {
  if (canonical(from) === 'timestamptz' && canonical(to) === 'text') {
    return dialect === 'postgres'
      ? `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
      : `strftime(timezone('UTC', ${column}), '%Y-%m-%dT%H:%M:%S.%fZ')`;
  }
  return `CAST(${column} AS ${to})`;
}
