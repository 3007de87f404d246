import { describe, expect, it } from 'vitest';
import { readableLine } from '../../src/cli/readable-line.js';

describe('readableLine', () => {
  it.each([
    [{ msg: 'daemon stopped' }, 'daemon stopped'],
    [
      { level: 30, time: 1, run: 'ab12', msg: 'sync finished', account: 'default', requests: 12, ok: true },
      'sync finished account=default requests=12 ok=true',
    ],
    [{ msg: 'tick skipped', schedule: '*/5 * * * *' }, 'tick skipped schedule="*/5 * * * *"'],
    [
      { msg: 'sync finished', outcomes: [{ resource: 'authentications' }], plan: { a: 1 }, error: null },
      'sync finished',
    ],
    [{ msg: 'run failed', error: 'x'.repeat(61) }, 'run failed'],
    [{ msg: 'run failed', error: 'HTTP 503' }, 'run failed error="HTTP 503"'],
    [{ msg: 'empty', note: '' }, 'empty'],
  ])('%j', (record, line) => {
    expect(readableLine(record)).toBe(line);
  });
});
