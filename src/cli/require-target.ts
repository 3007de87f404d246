import { existsSync } from 'node:fs';
import { UserError } from '../errors.js';
import { parseTarget } from '../store/parse-target.js';

/**
 * A command that reads or changes what is stored (verify, reset) must not
 * create the target it is asked about: a file target that does not exist is a
 * mistake in --db (a Postgres schema is created by the first command that opens it).
 */
export function requireTarget(db: string, what: string): void {
  const target = parseTarget(db);
  if (target.kind !== 'postgres' && !existsSync(target.path)) {
    throw new UserError('NO_TARGET', `target ${target.kind}:${target.path} does not exist: nothing to ${what} (run backfill or sync first, or check --db)`);
  }
}
