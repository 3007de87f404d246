import { describe, expect, it } from 'vitest';
import { parseCadence, type Cadence } from '../../src/config/parse-cadence.js';
import { verifyDue } from '../../src/daemon/verify-cadence.js';
import { InputError } from '../../src/errors.js';

const flag = { kind: 'flag', name: '--verify-every' } as const;

describe('parseCadence', () => {
  const good: Array<[string, Cadence]> = [
    ['6h', { kind: 'every', seconds: 21_600, text: '6h' }],
    ['1d', { kind: 'every', seconds: 86_400, text: '1d' }],
    ['90m', { kind: 'every', seconds: 5_400, text: '90m' }],
    ['2w', { kind: 'every', seconds: 1_209_600, text: '2w' }],
    ['1.5h', { kind: 'every', seconds: 5_400, text: '1.5h' }],
    ['30s', { kind: 'every', seconds: 30, text: '30s' }],
    ['0 3 * * *', { kind: 'cron', expression: '0 3 * * *' }],
    ['*/10 * * * * *', { kind: 'cron', expression: '*/10 * * * * *' }],
  ];
  for (const [text, cadence] of good) it(`reads '${text}'`, () => expect(parseCadence(text, flag)).toEqual(cadence));

  for (const text of ['daily', '6', '6x', '0s', '-1d', '61 * * * *']) {
    it(`refuses '${text}', naming where it came from`, () => {
      const error = (() => {
        try {
          parseCadence(text, flag);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).message).toMatch(/^--verify-every: /);
    });
  }
});

describe('verifyDue', () => {
  const H = 3_600_000;
  const every = parseCadence('6h', flag);
  const cron = parseCadence('0 3 * * *', flag);
  const cases: Array<{
    name: string;
    cadence: Cadence;
    last: number | null;
    now: number;
    fire: number | null;
    due: boolean;
  }> = [
    { name: 'a period, never verified', cadence: every, last: null, now: 10 * H, fire: null, due: true },
    { name: 'a period, verified within it', cadence: every, last: 5 * H, now: 10 * H, fire: null, due: false },
    { name: 'a period, verified a period ago', cadence: every, last: 4 * H, now: 10 * H, fire: null, due: true },
    {
      name: 'a cron that has not fired since the daemon started',
      cadence: cron,
      last: null,
      now: 10 * H,
      fire: null,
      due: false,
    },
    { name: 'a cron that fired, never verified', cadence: cron, last: null, now: 10 * H, fire: 9 * H, due: true },
    {
      name: 'a cron that fired after the last verify',
      cadence: cron,
      last: 8 * H,
      now: 10 * H,
      fire: 9 * H,
      due: true,
    },
    {
      name: 'a cron whose fire the last verify (of any daemon) followed',
      cadence: cron,
      last: 9.5 * H,
      now: 10 * H,
      fire: 9 * H,
      due: false,
    },
  ];
  for (const c of cases) it(c.name, () => expect(verifyDue(c.cadence, c.last, c.now, c.fire)).toBe(c.due));
});
