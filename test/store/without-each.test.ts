import { describe, expect, it } from 'vitest';
import { withoutEach } from '../../src/store/pages/session-store.js';

describe('withoutEach', () => {
  const of = (...values: number[]) => Float64Array.from(values);

  it.each([
    [of(1, 2, 3), of(), of(1, 2, 3)],
    [of(1, 2, 3), of(2), of(1, 3)],
    [of(1, 2, 2, 3), of(2), of(1, 2, 3)],
    [of(1, 2, 2, 3), of(2, 2), of(1, 3)],
    [of(1.5, 1.500001, 7), of(1.500001, 7), of(1.5)],
    [of(1, 2, 3), of(1, 2, 3), of()],
    [of(), of(), of()],
  ])('%j less %j is %j', (every, some, kept) => {
    expect(withoutEach(every, some)).toEqual(kept);
  });

  it('skips a value of `some` that `every` does not hold, and removes the rest', () => {
    expect(withoutEach(of(1, 3, 5), of(2, 3))).toEqual(of(1, 5));
  });
});
