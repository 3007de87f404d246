import { isApiFailure } from '../../api/errors.js';
import { UserError } from '../../errors.js';

/**
 * Whether an error stops the whole run or costs only the window being paged,
 * decided by the error tree. The service misbehaving for one request (retries
 * exhausted, an unexpected answer, a cursor loop) costs that window, and the
 * next run retries it. Anything the user must fix (the token, the request,
 * the service's address) and any failure of the target itself stop the run:
 * every other window would meet them too.
 */
export function stopsTheRun(error: unknown): boolean {
  if (error instanceof UserError) return true;
  return !isApiFailure(error);
}

/** An error's message, or the thrown value as text. */
export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
