import { describe, expect, it } from 'vitest';
import { DiskFullError, StoreError, toStoreError } from '../../src/store/drivers/store-error.js';
import { TargetUnavailableError } from '../../src/store/drivers/target-unavailable-error.js';
import { isTransientFault, transientRetryPauseMs } from '../../src/store/drivers/transient-fault.js';

const target = (code: string | null, message = 'x') => new StoreError('postgres', 'target', code, message, null);
const pgError = (message: string) => toStoreError(new Error(message), 'postgres');
const NOT_QUERYABLE = 'ROLLBACK - Client has encountered a connection error and is not queryable';

describe('isTransientFault', () => {
  const cases: Array<[string, unknown, boolean]> = [
    ['admin shutdown (57P01)', target('57P01'), true],
    ['crash shutdown (57P02)', target('57P02'), true],
    ['starting up (57P03)', target('57P03'), true],
    ['serialization failure (40001)', target('40001'), true],
    ['deadlock (40P01)', target('40P01'), true],
    ['connection failure (08006)', target('08006'), true],
    ['refused', target('ECONNREFUSED'), true],
    ['reset', target('ECONNRESET'), true],
    ['pg: connection terminated (no code)', pgError('ROLLBACK - Connection terminated unexpectedly'), true],
    ['pg: client not queryable', pgError(NOT_QUERYABLE), true],
    ['undefined table (42P01)', target('42P01'), false],
    ['a refused row (22021)', new StoreError('postgres', 'row', '22021', 'x', null), false],
    ['disk full', new DiskFullError('postgres', '53100', null), false],
    ['SQLite busy (its driver waits itself)', new StoreError('sqlite', 'target', 'SQLITE_BUSY', 'x', null), false],
    ['an error of ivsync', new Error('bug'), false],
    ['already given up on', new TargetUnavailableError(target('57P03'), 60_000), true],
  ];
  it.each(cases)('%s', (_name, error, expected) => {
    expect(isTransientFault(error)).toBe(expected);
  });

  it('takes a refused connection as a wrong address when told to', () => {
    expect(isTransientFault(target('ECONNREFUSED'), { refused: false })).toBe(false);
    expect(isTransientFault(target('57P03'), { refused: false })).toBe(true);
  });
});

describe('transientRetryPauseMs', () => {
  const cases: Array<[string, number, number, number, number | null]> = [
    ['first retry', 1, 10, 60_000, 250],
    ['second', 2, 300, 60_000, 500],
    ['grows to the cap', 6, 10_000, 60_000, 5_000],
    ['stays at the cap', 40, 50_000, 60_000, 5_000],
    ['cut to end with the budget', 9, 58_000, 60_000, 2_000],
    ['budget spent', 10, 60_000, 60_000, null],
    ['no budget: no retry', 1, 0, 0, null],
  ];
  it.each(cases)('%s', (_name, attempt, elapsed, budget, expected) => {
    expect(transientRetryPauseMs(attempt, elapsed, budget)).toBe(expected);
  });
});

describe('TargetUnavailableError', () => {
  it('names the fault and says that the same command resumes, in one line', () => {
    const error = new TargetUnavailableError(target('57P03', 'the database system is starting up'), 61_200);
    expect(error.message).toBe(
      'postgres failed (57P03): the database system is starting up, still failing after 61 s of retries; ' +
        'what was committed is kept: run the same command again once the database is up to resume',
    );
  });

  it('keeps the message of a server error that came without a statement', () => {
    const raw = Object.assign(new Error('the database system is starting up'), { code: '57P03', severity: 'FATAL' });
    const message = (toStoreError(raw, 'postgres') as StoreError).message;
    expect(message).toBe('postgres failed (57P03): the database system is starting up');
  });
});
