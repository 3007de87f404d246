import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/cli/logger.js';
import { Progress } from '../../src/cli/progress.js';
import { renderSignalNotice } from '../../src/cli/error-output.js';
import { estimateTotalPages, formatEta, shownFraction, smoothedEta } from '../../src/cli/progress-estimate.js';

describe('estimateTotalPages', () => {
  it.each([
    ['no crawl has an estimate yet', 3, [null], undefined],
    ['nothing reported', 0, [], undefined],
    ['one account', 10, [30], 40],
    ['accounts add up; one still unknown counts nothing', 10, [30, null, 5], 45],
    ['a crawl that overshot its estimate', 10, [-2], 10],
  ] as const)('%s', (_name, done, left, want) => {
    expect(estimateTotalPages(done, left)).toBe(want);
  });
});

describe('shownFraction', () => {
  it.each([
    ['follows the estimate', 0.1, 20, 100, false, 0.2],
    ['never goes back when the estimate grows', 0.5, 20, 100, false, 0.5],
    ['stays below 100% until the run ends', 0, 100, 100, false, 0.99],
    ['100% at the end', 0.3, 30, 100, true, 1],
    ['holds without an estimate', 0.25, 40, undefined, false, 0.25],
  ] as const)('%s', (_name, previous, done, total, finished, want) => {
    expect(shownFraction(previous, done, total, finished)).toBe(want);
  });
});

describe('smoothedEta', () => {
  it.each([
    ['none without a rate', undefined, 1, 100, 0, undefined],
    ['none without an estimate', undefined, 1, undefined, 5, undefined],
    ['the first reading as it is', undefined, 0, 100, 10, 10],
    ['counts down when the reading agrees', 10, 1, 90, 10, 9],
    ['moves a fifth of the way to a new reading', 10, 0, 200, 10, 12],
    ['a 429 pause: no rate, it keeps counting down', 10, 3, 90, 0, 7],
    ['never below zero', 2, 5, undefined, 0, 0],
  ] as const)('%s', (_name, previous, since, left, rate, want) => {
    expect(smoothedEta(previous, since, left, rate)).toBe(want);
  });
});

describe('formatEta', () => {
  it.each([
    [0, '0s'],
    [44.6, '45s'],
    [185, '3m 05s'],
    [7620, '2h 07m'],
  ])('%s s is %s', (seconds, text) => {
    expect(formatEta(seconds)).toBe(text);
  });
});

describe('the signal notice on a terminal', () => {
  it('takes the line of the bar for itself and ends it, so the bar draws again below', () => {
    const text = renderSignalNotice('SIGINT', undefined, 'finishing the pages in flight');
    expect(text.startsWith('\r\u001b[2K')).toBe(true);
    expect(text.endsWith('\n')).toBe(true);
    expect(text).toContain('ivsync: SIGINT: finishing the pages in flight');
  });
  it('off a terminal it stays one JSON line', () => {
    const text = renderSignalNotice('SIGINT', { time: '2026-01-01T00:00:00.000Z', run: 'r1' }, 'stopping');
    expect(JSON.parse(text)).toMatchObject({ level: 'warn', signal: 'SIGINT', run: 'r1' });
  });
});

describe('what the bar shows', () => {
  const plan = {
    account: 'a',
    resource: 'authentications',
    windows: 4,
    todo: 4,
    resumed: 0,
    seconds: 400,
    totalSeconds: 400,
  } as const;
  const page = (pagesLeft: number | null) =>
    ({
      type: 'page',
      account: 'a',
      resource: 'authentications',
      items: 25,
      rejected: 0,
      written: 25,
      stale: 0,
      covered: 10,
      pagesLeft,
    }) as const;

  it.each([
    ['completed', true, '100'],
    ['interrupted', false, '99'],
  ] as const)(
    'follows the pages against the estimate, never a placeholder; at the end (%s) it shows %s%%',
    (_name, completed, end) => {
      let now = 0;
      const logger = createLogger({ level: 'silent', destination: new PassThrough(), bindings: {} });
      const progress = new Progress({ tty: false, stream: new PassThrough(), logger, clock: () => now });
      progress.onEvent({ type: 'backfill-plan', plans: [plan] });
      const shown: Array<{ pct: string; etaText: string }> = [];
      // The estimate of pages left comes and goes (null: a stream's density not known yet).
      for (const left of [null, 9, 20, 12, 6, 1, 0, 0]) {
        now += 1000;
        progress.onEvent(page(left));
        shown.push(progress.shown);
      }
      const percents = shown.map((s) => Number(s.pct));
      // Never back, never 100% while running.
      expect(percents).toEqual([...percents].sort((a, b) => a - b));
      expect(Math.max(...percents)).toBeLessThan(100);
      expect(percents[0]).toBe(0);
      // No ETA until a rate is known (2 s), then always a number.
      expect(shown[0]!.etaText).toBe('');
      for (const s of shown.slice(2)) expect(s.etaText).toMatch(/^ \| ETA \d+s$/);
      progress.stop(completed);
      expect(progress.shown.pct).toBe(end);
    },
  );
});
