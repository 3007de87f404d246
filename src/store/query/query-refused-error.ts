import { UserError } from '../../errors.js';

/** `ivsync query` runs one statement that reads; anything else is refused before it runs. */
export class QueryRefusedError extends UserError {
  constructor(problem: string) {
    super('QUERY_REFUSED', `query is read-only and runs one statement that reads (SELECT, WITH, EXPLAIN): ${problem}`);
  }
}
