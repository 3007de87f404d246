import { describe, expect, it } from 'vitest';
import { checkInterval, parseBounds, parseInterval } from '../../src/config/interval.js';
import { InputError, UserError } from '../../src/errors.js';

const NOW = Date.UTC(2026, 0, 1) / 1000;
const GRID = { windowSeconds: 86_400, maxWindows: 1_000 };
const FLAGS = { from: '--backfill-from', to: '--backfill-to' };

function refusal(run: () => unknown): { code: string; message: string; flag: string | undefined } | null {
  try {
    run();
    return null;
  } catch (error) {
    if (!(error instanceof UserError)) throw error;
    const source = error instanceof InputError ? error.source : undefined;
    return { code: error.code, message: error.message, flag: source?.kind === 'flag' ? source.name : undefined };
  }
}

describe('parseInterval', () => {
  it.each([
    ['2025-01-01', '2025-01-31', { from: Date.UTC(2025, 0, 1) / 1000, to: Date.UTC(2025, 0, 31) / 1000 }],
    ['1735689600', '1735689600', { from: 1_735_689_600, to: 1_735_689_600 }],
  ])('%s to %s is %o', (from, to, expected) => {
    expect({ ...parseInterval({ from, to }, FLAGS, NOW, GRID) }).toEqual(expected);
  });

  it.each([
    [
      '2025-02-01',
      '2025-01-01',
      'BAD_INTERVAL',
      '--backfill-to: 2025-01-01 is before --backfill-from 2025-02-01',
      '--backfill-to',
    ],
    ['yesterday', '2025-01-01', 'BAD_TIME', undefined, '--backfill-from'],
    ['2025-01-01', '1767225600000', 'BAD_TIME', undefined, '--backfill-to'],
    ['2020-01-01', '2025-12-31', 'TOO_MANY_WINDOWS', undefined, undefined],
  ])('%s to %s is refused with %s', (from, to, code, message, flag) => {
    const refused = refusal(() => parseInterval({ from, to }, FLAGS, NOW, GRID));
    expect(refused).toMatchObject({ code, flag });
    if (message !== undefined) expect(refused!.message).toBe(message);
  });
});

describe('checkInterval', () => {
  it('lets through an interval in order whose windows fit the grid', () => {
    expect({ ...checkInterval(100, 200, GRID) }).toEqual({ from: 100, to: 200 });
  });

  it.each([
    [200, 100, 'BAD_INTERVAL', 'the interval ends (1970-01-01T00:01:40Z) before it starts (1970-01-01T00:03:20Z)'],
    [Number.NaN, 100, 'BAD_INTERVAL', 'the interval [NaN, 100] is not two times in epoch seconds'],
    [0, Number.POSITIVE_INFINITY, 'BAD_INTERVAL', undefined],
    [0, 86_400 * 1_000, 'TOO_MANY_WINDOWS', undefined],
  ])('[%s, %s] is refused with %s, naming no flag', (from, to, code, message) => {
    const refused = refusal(() => checkInterval(from, to, GRID));
    expect(refused).toMatchObject({ code, flag: undefined });
    if (message !== undefined) expect(refused!.message).toBe(message);
    expect(refused!.message).not.toContain('--');
  });
});

describe('parseBounds', () => {
  const flags = { from: '--from', to: '--to' };
  it.each([
    [{}, { from: undefined, to: undefined }],
    [{ from: '2025-01-01' }, { from: Date.UTC(2025, 0, 1) / 1000, to: undefined }],
    [{ to: '2025-01-01' }, { from: undefined, to: Date.UTC(2025, 0, 1) / 1000 }],
  ])('%o is %o', (texts, expected) => {
    expect(parseBounds(texts, flags, NOW)).toEqual(expected);
  });

  it('refuses an end before the start as parseInterval does', () => {
    expect(refusal(() => parseBounds({ from: '2025-03-01', to: '2025-02-01' }, flags, NOW))).toEqual({
      code: 'BAD_INTERVAL',
      message: '--to: 2025-02-01 is before --from 2025-03-01',
      flag: '--to',
    });
  });
});
