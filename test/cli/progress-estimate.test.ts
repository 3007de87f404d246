import { describe, expect, it } from 'vitest';
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
    const text = renderSignalNotice('SIGINT', undefined);
    expect(text.startsWith('\r\u001b[2K')).toBe(true);
    expect(text.endsWith('\n')).toBe(true);
    expect(text).toContain('ivsync: SIGINT: finishing the pages in flight');
  });
  it('off a terminal it stays one JSON line', () => {
    const text = renderSignalNotice('SIGINT', { time: '2026-01-01T00:00:00.000Z', run: 'r1' });
    expect(JSON.parse(text)).toMatchObject({ level: 'warn', signal: 'SIGINT', run: 'r1' });
  });
});
