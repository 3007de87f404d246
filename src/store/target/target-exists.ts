import { existsSync } from 'node:fs';
import { parseTarget } from './parse-target.js';

/**
 * Whether the target is surely not there yet: a SQLite or DuckDB file that
 * does not exist. Such a target has no checkpoint, so what a command needs
 * for a first run (`sync --since`) can be checked before anything creates
 * it. A PostgreSQL target cannot be told without connecting: false.
 */
export function targetSurelyAbsent(target: string): boolean {
  const parsed = parseTarget(target);
  return parsed.kind !== 'postgres' && !existsSync(parsed.path);
}
