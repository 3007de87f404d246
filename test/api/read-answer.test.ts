import { describe, expect, it } from 'vitest';
import { readAnswer, type Outcome } from '../../src/api/read-answer.js';

describe('readAnswer', () => {
  const page = '{"item_count": 0, "items": [], "next_cursor": null}';
  it.each<[string, number, string | undefined, string, Outcome]>([
    [
      'a 200 with JSON: the body and its text',
      200,
      undefined,
      page,
      { ok: true, answer: { status: 200, body: JSON.parse(page), text: page } },
    ],
    [
      'a JSON scalar: no text to slice items from',
      200,
      undefined,
      '"ok"',
      { ok: true, answer: { status: 200, body: 'ok' } },
    ],
    ['an empty 204', 204, undefined, '', { ok: true, answer: { status: 204, body: '' } }],
    [
      'a 200 cut off mid-way: invalid-body, with its status',
      200,
      undefined,
      '{"items": [',
      {
        ok: false,
        failure: {
          kind: { kind: 'invalid-body' },
          response: { status: 200, retryAfter: undefined, body: '{"items": [' },
          message: 'invalid JSON',
        },
      },
    ],
    ['a redirect is an answer, not followed', 302, undefined, '', { ok: true, answer: { status: 302, body: '' } }],
    [
      "a 429: its Retry-After and the service's message",
      429,
      '0.4',
      '{"message": "slow down"}',
      {
        ok: false,
        failure: {
          kind: { kind: 'status', status: 429 },
          response: { status: 429, retryAfter: '0.4', body: { message: 'slow down' } },
          message: 'HTTP 429',
        },
      },
    ],
    [
      'a 502 from a proxy, in HTML: kept as text',
      502,
      undefined,
      '<html>Bad Gateway</html>',
      {
        ok: false,
        failure: {
          kind: { kind: 'status', status: 502 },
          response: { status: 502, retryAfter: undefined, body: '<html>Bad Gateway</html>' },
          message: 'HTTP 502',
        },
      },
    ],
  ])('%s', (_name, status, retryAfter, text, expected) => {
    expect(readAnswer(status, retryAfter, text)).toEqual(expected);
  });
});
