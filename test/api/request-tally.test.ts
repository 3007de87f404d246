import { describe, expect, it } from 'vitest';
import { countAttempt, countFailure } from '../../src/api/request-tally.js';
import type { RequestTally } from '../../src/api/service-client.js';

// A part's tally (a run's refresh) counts its attempts, and the whole's (the run's) counts them too, once.
describe('request tallies', () => {
  it.each([
    { name: 'a tally alone', attempts: 3, failures: [], part: { requests: 3 }, whole: { requests: 0 } },
    {
      name: 'a part within the whole',
      within: true,
      attempts: 3,
      failures: [
        { throttled: true, waitMs: 40 },
        { throttled: false, waitMs: 10 },
      ],
      part: { requests: 3, throttled: 1, retryWaitMs: 50 },
      whole: { requests: 3, throttled: 1, retryWaitMs: 50 },
    },
  ])('$name', ({ within, attempts, failures, part, whole }) => {
    const run: RequestTally = { requests: 0 };
    const tally: RequestTally = within ? { requests: 0, within: run } : { requests: 0 };
    for (let i = 0; i < attempts; i++) countAttempt(tally);
    for (const f of failures) countFailure(tally, f.throttled, f.waitMs);
    expect({ ...tally, within: undefined }).toEqual({ ...part, within: undefined });
    expect(run).toEqual(whole);
  });

  it('no tally: nothing to count', () => {
    expect(() => {
      countAttempt(undefined);
      countFailure(undefined, true, 5);
    }).not.toThrow();
  });
});
