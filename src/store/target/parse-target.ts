import { UserError } from '../../errors.js';

export type Target =
  | { kind: 'sqlite'; path: string }
  | { kind: 'duckdb'; path: string }
  | {
      kind: 'postgres';
      /** The URL handed to pg: `schema` removed, the password kept (never print it; see `redacted`). */
      connectionString: string;
      schema: string;
      /** The URL with its password replaced, for messages and logs. */
      redacted: string;
      /** The password, so it can be scrubbed from driver errors; null when none. */
      password: string | null;
    };

/** Default target when none is configured. */
export const DEFAULT_TARGET = 'sqlite:./data/ivsync.sqlite';

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** A target URL with any password replaced by `***`, safe for messages and logs. */
export function redactTarget(target: string): string {
  return target.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@?#]*):[^@/?#]*@/i, '$1:***@');
}

/**
 * Reads `--db`: `sqlite:PATH`, `duckdb:PATH`, or `postgres://…` /
 * `postgresql://…` with an optional `?schema=NAME` that puts every table and
 * view in that PostgreSQL schema.
 * @default schema public
 */
export function parseTarget(target: string): Target {
  if (target.startsWith('sqlite:')) return { kind: 'sqlite', path: nonEmptyPath(target, 'sqlite:') };
  if (target.startsWith('duckdb:')) return { kind: 'duckdb', path: nonEmptyPath(target, 'duckdb:') };
  if (target.startsWith('postgres://') || target.startsWith('postgresql://')) return parsePostgres(target);
  throw new UserError(
    'BAD_TARGET',
    `unknown target '${redactTarget(target)}': expected sqlite:PATH, duckdb:PATH or postgres://…`,
  );
}

function nonEmptyPath(target: string, prefix: string): string {
  const path = target.slice(prefix.length);
  if (path === '') throw new UserError('BAD_TARGET', `target '${target}' has no path: expected ${prefix}PATH`);
  return path;
}

function parsePostgres(target: string): Target {
  const redacted = redactTarget(target);
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new UserError('BAD_TARGET', `target '${redacted}' is not a valid postgres:// URL`);
  }
  const schema = url.searchParams.get('schema') ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw new UserError(
      'BAD_TARGET',
      `target '${redacted}': schema '${schema}' must be letters, digits and _ (not starting with a digit)`,
    );
  }
  url.searchParams.delete('schema');
  const password = url.password === '' ? null : decodeURIComponent(url.password);
  return { kind: 'postgres', connectionString: url.toString(), schema, redacted, password };
}
