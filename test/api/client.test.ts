import { afterEach, describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { UserError } from '../../src/errors.js';
import { createClient } from '../../src/api/client.js';
import type { ClientOptions } from '../../src/api/client.js';
import {
  ApiError,
  AuthRejectedError,
  BadRequestError,
  CursorLoopError,
  RetriesExhaustedError,
  isApiFailure,
} from '../../src/api/errors.js';
import { RateLimiter } from '../../src/api/rate-limiter.js';
import type { RequestEvent, ServiceClient } from '../../src/api/service-client.js';
import { caught, expectNoSecret } from './caught.js';
import { sendJson, startScriptServer } from './script-server.js';
import type { Script, ScriptServer } from './script-server.js';
import { clientOptions } from '../helpers/client-options.js';

const TOKEN = 'tok-9f8e7d6c5b4a-very-secret';

let server: ScriptServer | undefined;
let client: ServiceClient | undefined;

afterEach(async () => {
  client?.close();
  client = undefined;
  await server?.close();
  server = undefined;
});

interface Setup {
  server: ScriptServer;
  client: ServiceClient;
  limiter: RateLimiter;
  events: RequestEvent[];
}

async function setup(script: Script, options: Partial<ClientOptions> = {}): Promise<Setup> {
  server = await startScriptServer(script);
  const limiter = options.limiter ?? new RateLimiter({ rate: 1000 });
  const events: RequestEvent[] = [];
  client = createClient(
    clientOptions(server.baseUrl, {
      token: new Secret(TOKEN),
      limiter,
      onRequest: (event) => events.push(event),
      ...options,
    }),
  );
  return { server, client, limiter, events };
}

const item = (id: string) => ({ service_id: id, activity: { name: 'authentication' } });
const page = (ids: string[], next: string | null) => ({
  item_count: ids.length,
  items: ids.map(item),
  next_cursor: next,
});

const expectNoToken = (error: Error): void => expectNoSecret(error, TOKEN);

describe('headers', () => {
  it('sends the version, token, language, user agent, and a JSON content type on POST', async () => {
    const { server, client } = await setup(
      (req, res) => (req.method === 'GET' ? sendJson(res, 200, { status: 'ok' }) : sendJson(res, 200, page([], null))),
      { acceptLanguage: 'ja' },
    );
    await client.health();
    await client.searchPage('authentications', {});
    const [health, search] = server.seen;
    expect(health?.path).toBe('/v1/health');
    expect(health?.headers['api-version']).toBe('1.4');
    expect(health?.headers.authorization).toBe(`Token ${TOKEN}`);
    expect(health?.headers['accept-language']).toBe('ja');
    expect(health?.headers['user-agent']).toMatch(/^ivsync\/\d+\.\d+\.\d+/);
    expect(search?.method).toBe('POST');
    expect(search?.path).toBe('/v1/search/authentications');
    expect(search?.headers['content-type']).toMatch(/^application\/json/);
    expect(search?.headers.authorization).toBe(`Token ${TOKEN}`);
    expect(search?.body).toEqual({ limit: 25 });
  });

  it('refuses plain http to a host that is not loopback, before any request', () => {
    const limiter = new RateLimiter({ rate: 10 });
    const attempt = () => createClient(clientOptions('http://api.example.com', { token: new Secret(TOKEN), limiter }));
    expect(attempt).toThrow(UserError);
    expect(attempt).toThrow(/https/);
    expect(limiter.stats.started).toBe(0);
  });
});

describe('retries', () => {
  it('429 with Retry-After pauses the whole bucket, then the request is retried', async () => {
    let signal429: () => void = () => undefined;
    const saw429 = new Promise<void>((resolve) => (signal429 = resolve));
    let firstA = true;
    const { server, client, limiter } = await setup(
      (req, res) => {
        if (req.path.endsWith('/A') && firstA) {
          firstA = false;
          sendJson(res, 429, { message: 'slow down' }, { 'retry-after': '0.4' });
          return;
        }
        sendJson(res, 200, { item: item(req.path.split('/').pop() ?? '') });
      },
      {
        onRequest: (event) => {
          if (event.status === 429) signal429();
        },
      },
    );
    const a = client.get('authentications', 'A');
    await saw429;
    expect(limiter.stats.pauses).toBe(1);

    const b = client.get('authentications', 'B');
    const sawB = () => server.seen.some((r) => r.path.endsWith('/B'));
    while (limiter.pending === 0 && !sawB()) await new Promise<void>((resolve) => setImmediate(resolve));
    // B is another request entirely, yet it waits in the bucket rather than going out.
    expect(sawB()).toBe(false);
    expect(limiter.pending).toBe(1);

    expect(await a).toMatchObject({ item: item('A'), warnings: [] });
    expect(await b).toMatchObject({ item: item('B'), warnings: [] });
    expect(server.seen.filter((r) => r.path.endsWith('/A'))).toHaveLength(2);
    expect(client.stats.status429).toBe(1);
    expect(client.stats.retries).toBe(1);
    expect(client.stats.retryWaitMs).toBe(400);
  });

  it('a Retry-After given as an HTTP date is a wall-clock time: the wait ends with it', async () => {
    let first = true;
    const { client } = await setup((_req, res) => {
      if (!first) return sendJson(res, 200, { status: 'ok' });
      first = false;
      // Whole seconds: the wait is under a second.
      sendJson(res, 429, { message: 'slow down' }, { 'retry-after': new Date(Date.now() + 1000).toUTCString() });
    });
    await client.health();
    expect(client.stats.status429).toBe(1);
    expect(client.stats.retryWaitMs).toBeLessThanOrEqual(1000);
  });

  it.each([
    ['a 500', '500', (res: Parameters<Script>[1]) => sendJson(res, 500, { message: 'oops' })],
    ['a connection reset', 'ECONNRESET', (res: Parameters<Script>[1]) => res.socket?.destroy()],
    [
      'a body cut short of its Content-Length',
      'ECONNRESET',
      (res: Parameters<Script>[1]) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"item_count": 1, "items": [');
        setImmediate(() => res.socket?.destroy());
      },
    ],
    [
      'truncated JSON with a matching length',
      'EBADBODY',
      (res: Parameters<Script>[1]) => {
        const text = '{"item_count": 1, "items": [{"service_id"';
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
        res.end(text);
      },
    ],
  ])('%s is retried, and every attempt takes a token', async (_name, failure, fail) => {
    const { server, client, limiter, events } = await setup((_req, res, index) => {
      if (index < 2) fail(res);
      else sendJson(res, 200, page(['s1'], null));
    });
    const result = await client.searchPage('authentications', { range: { start: 1, end: 2 } });
    expect(result.items).toEqual([item('s1')]);
    expect(server.seen).toHaveLength(3);
    expect(limiter.stats.started).toBe(3);
    expect(client.stats.requests).toBe(3);
    expect(client.stats.retries).toBe(2);
    expect(client.stats.byStatus).toEqual({ [failure]: 2, '200': 1 });
    expect(events.map((e) => e.attempt)).toEqual([1, 2, 3]);
    expect(events.every((e) => e.route === '/v1/search/authentications' && e.method === 'POST')).toBe(true);
    // Retries resend the same body.
    expect(server.seen.map((r) => r.body)).toEqual(
      Array.from({ length: 3 }, () => ({ limit: 25, range: { start: 1, end: 2 } })),
    );
  });

  it('a request that gets no answer in time is retried', async () => {
    const { server, client } = await setup(
      (_req, res, index) => {
        if (index === 0) return; // never answers
        sendJson(res, 200, { status: 'ok' });
      },
      { timeoutMs: 150 },
    );
    await client.health();
    expect(server.seen).toHaveLength(2);
    expect(client.stats.byStatus).toEqual({ ETIMEDOUT: 1, '200': 1 });
  });

  it('gives up after limit + 1 attempts with one line naming the route and the last cause', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, 502, {}), {
      retry: { baseMs: 1, maxMs: 2, limit: 2 },
    });
    const error = await caught(client.searchPage('authentications', {}));
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect(error.message).toBe(
      `gave up on POST ${server.baseUrl}/v1/search/authentications after 3 attempts: HTTP 502`,
    );
    expect((error as RetriesExhaustedError).status).toBe(502);
    expect((error as RetriesExhaustedError).code).toBe('RETRIES_EXHAUSTED');
    expect(server.seen).toHaveLength(3);
    expectNoToken(error);
  });

  it('400 is not retried and carries the service message', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, 400, { message: 'unknown filter key' }));
    const error = await caught(client.searchPage('authentications', { filters: [{ key: 'nope', value: 'x' }] }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toBe('the service rejected the request (400): unknown filter key');
    expect(server.seen).toHaveLength(1);
  });

  it('a create is not resent after a 500: the service may have acted on it', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, 500, {}));
    const error = await caught(
      client.webhooks.create({
        endpoint: 'https://hooks.example.com/x',
        secretKey: new Secret('s'.repeat(24)),
        filters: [{ key: 'activity.name', value: 'authentication' }],
      }),
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(500);
    expect(server.seen).toHaveLength(1);
    expect(error.message).not.toContain('s'.repeat(24));
  });
});

describe('the token never shows', () => {
  it('401 becomes one line, and the token is in no rendering of the error', async () => {
    const { server, client } = await setup((req, res) =>
      // A service that echoes the header back must not leak it either.
      sendJson(res, 401, { message: `invalid token ${String(req.headers.authorization)}` }),
    );
    const error = await caught(client.health());
    expect(error).toBeInstanceOf(AuthRejectedError);
    expect(error).toBeInstanceOf(UserError);
    expect(error.message).toBe('the service rejected the token (401)');
    expect(isApiFailure(error)).toBe(true);
    expect(server.seen).toHaveLength(1);
    expectNoToken(error);
  });

  it(
    'a 400 echoing it is scrubbed; a reset exhausting ' + 'retries leaks nothing; 403 on a search rejects the token',
    async () => {
      let mode = 400;
      const { client, server } = await setup(
        (req, res) => {
          if (mode === 0) return void res.socket?.destroy();
          sendJson(res, mode, { message: `bad ${String(req.headers.authorization)}` });
        },
        { retry: { limit: 1, baseMs: 1, maxMs: 1 } },
      );
      const bad = await caught(client.searchPage('fingerprints', {}));
      expect(bad.message).toBe('the service rejected the request (400): bad Token [redacted]');
      expectNoToken(bad);
      mode = 0;
      const reset = await caught(client.searchPage('fingerprints', {}));
      expect(reset).toBeInstanceOf(RetriesExhaustedError);
      expect(reset.message).toBe(
        `gave up on POST ${server.baseUrl}/v1/search/fingerprints after 2 attempts: connection failed (ECONNRESET)`,
      );
      expectNoToken(reset);
      // Last: a refused token fails every later request of the client too.
      mode = 403;
      const forbidden = await caught(client.searchPage('fingerprints', {}));
      expect(forbidden.message).toBe('the service rejected the token (403)');
      expectNoToken(forbidden);
    },
  );
});

describe('by-id routes', () => {
  it('v1.4: 403 means not there or not accessible, and ids are encoded as one path segment', async () => {
    const { server, client } = await setup((req, res) =>
      req.path.includes('/lookup/')
        ? sendJson(res, 403, {})
        : sendJson(res, 200, { item: item('fp1'), warnings: [{ code: 'fingerprint_parent_not_authorized' }] }),
    );
    expect(await client.lookup('order/42 x?')).toBeNull();
    expect(server.seen[0]?.url).toBe('/v1/lookup/authentications/order%2F42%20x%3F');
    expect(await client.get('fingerprints', 'fp1')).toEqual({
      item: item('fp1'),
      warnings: [{ code: 'fingerprint_parent_not_authorized' }],
      itemText: JSON.stringify(item('fp1')),
    });
    expect(server.seen[1]?.path).toBe('/v1/fingerprints/fp1');
  });

  it("carry the item's text exactly as the service sent it", async () => {
    const text = '{ "service_id": "a1",\n  "timestamp": {"epoch": 1.50}, "note": "}\\"" }';
    const { client } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"warnings": [], "item": ${text}}`);
    });
    const fetched = await client.get('authentications', 'a1');
    expect(fetched?.item).toEqual({ service_id: 'a1', timestamp: { epoch: 1.5 }, note: '}"' });
    expect(fetched?.itemText).toBe(text);
  });

  it('v1.4: a 404 is not read as "missing" (it would mean a wrong base URL)', async () => {
    const { client } = await setup((_req, res) => sendJson(res, 404, { message: 'no such route' }));
    const error = await caught(client.get('authentications', 'x'));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(404);
    expect((error as ApiError).route).toBe('GET /v1/authentications/{service_id}');
  });

  it('v2-only operations are refused on a v1.4 client', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, 200, {}));
    await expect(client.config()).rejects.toThrow(UserError);
    await expect(client.catalog()).rejects.toThrow(/API version 2/);
    expect(server.seen).toHaveLength(0);
  });
});

describe('pages', () => {
  it("carry each item's text exactly as the service sent it", async () => {
    const body =
      '{\n  "item_count": 2,\n  "items": [\n    {"service_id": "s1", "timestamp": {"epoch": 1.50}},\n    ' +
      '{"service_id": "s\\"2"}\n  ],\n  "next_cursor": null\n}';
    const { client } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    const result = await client.searchPage('authentications', {});
    expect(result.items).toEqual([{ service_id: 's1', timestamp: { epoch: 1.5 } }, { service_id: 's"2' }]);
    expect(result.itemTexts).toEqual(['{"service_id": "s1", "timestamp": {"epoch": 1.50}}', '{"service_id": "s\\"2"}']);
  });

  const chain: Record<string, ReturnType<typeof page>> = {
    '': page(['a1', 'a2'], 'c2'),
    c2: page(['a3'], 'c3'),
    c3: page(['a4'], null),
  };
  const byCursor: Script = (req, res) => {
    const cursor = (req.body as { cursor?: string }).cursor ?? '';
    sendJson(res, 200, chain[cursor] ?? page([], null));
  };

  it('follows cursors lazily and stops on a null cursor', async () => {
    const { server, client } = await setup(byCursor);
    const iterator = client.pages('authentications', { range: { start: 0, end: null } })[Symbol.asyncIterator]();
    expect(server.seen).toHaveLength(0);
    const first = await iterator.next();
    expect(first.value).toMatchObject({ cursor: null, nextCursor: 'c2', itemCount: 2 });
    expect(server.seen).toHaveLength(1);
    const second = await iterator.next();
    expect(second.value).toMatchObject({ cursor: 'c2', nextCursor: 'c3' });
    expect(server.seen).toHaveLength(2);
    const third = await iterator.next();
    expect(third.value).toMatchObject({ cursor: 'c3', nextCursor: null });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(server.seen).toHaveLength(3);
    expect(server.seen.map((r) => r.body)).toEqual([
      { limit: 25, range: { start: 0, end: null } },
      { limit: 25, range: { start: 0, end: null }, cursor: 'c2' },
      { limit: 25, range: { start: 0, end: null }, cursor: 'c3' },
    ]);
  });

  it('reads a priority function as each page queues, and calls onSend as each leaves', async () => {
    const limiter = new RateLimiter({ rate: 1000 });
    const { server, client } = await setup(byCursor, { limiter });
    const rank = { low: 1, high: 2 };
    const sent = { low: 0, high: 0 };
    const pages = (name: 'low' | 'high', start: number) =>
      client
        .pages(
          'authentications',
          { range: { start, end: null } },
          { priority: () => rank[name], onSend: () => void sent[name]++ },
        )
        [Symbol.asyncIterator]();
    const low = pages('low', 1);
    const high = pages('high', 2);
    // Held by a pause, both wait for a token: the higher rank, read as each queued, goes first.
    limiter.pauseFor(50);
    const firsts = [low.next(), high.next()];
    await Promise.all(firsts);
    expect(server.seen.map((r) => (r.body as { range: { start: number } }).range.start)).toEqual([2, 1]);
    // The ranks change between pages: the next pair goes the other way round.
    rank.low = 3;
    limiter.pauseFor(50);
    await Promise.all([low.next(), high.next()]);
    expect(server.seen.slice(2).map((r) => (r.body as { range: { start: number } }).range.start)).toEqual([1, 2]);
    expect(sent).toEqual({ low: 2, high: 2 });
  });

  it('resumes from a checkpoint cursor', async () => {
    const { client } = await setup(byCursor);
    const ids: string[] = [];
    for await (const p of client.pages('authentications', { cursor: 'c2' }))
      ids.push(...p.items.map((i) => (i as { service_id: string }).service_id));
    expect(ids).toEqual(['a3', 'a4']);
  });

  it.each(['1.4', '2'] as const)(
    'API %s: sends an array cursor back as the same array in `cursor`, and [] ends the pages',
    async (apiVersion) => {
      const arrays: Record<string, unknown> = {
        '': { item_count: 1, items: [item('b1')], next_cursor: ['1789000000', 'b1'] },
        '["1789000000","b1"]': { item_count: 1, items: [item('b2')], next_cursor: ['1788000000', 'b2'] },
        '["1788000000","b2"]': { item_count: 1, items: [item('b3')], next_cursor: [] },
      };
      const { server, client } = await setup(
        (req, res) => {
          const cursor = (req.body as { cursor?: unknown }).cursor;
          sendJson(
            res,
            200,
            arrays[cursor === undefined || cursor === null ? '' : JSON.stringify(cursor)] ?? {
              error: 'unknown cursor',
            },
          );
        },
        { apiVersion },
      );
      const pages: unknown[] = [];
      for await (const p of client.pages('authentications', {}))
        pages.push({
          ids: p.items.map((i) => (i as { service_id: string }).service_id),
          cursor: p.cursor,
          next: p.nextCursor,
        });
      expect(pages).toEqual([
        { ids: ['b1'], cursor: null, next: ['1789000000', 'b1'] },
        { ids: ['b2'], cursor: ['1789000000', 'b1'], next: ['1788000000', 'b2'] },
        { ids: ['b3'], cursor: ['1788000000', 'b2'], next: null },
      ]);
      expect(server.seen.map((r) => (r.body as { cursor?: unknown }).cursor ?? null)).toEqual([
        null,
        ['1789000000', 'b1'],
        ['1788000000', 'b2'],
      ]);
    },
  );

  it('throws CursorLoopError when a cursor comes back, without yielding that page', async () => {
    const loop: Record<string, ReturnType<typeof page>> = {
      '': page(['x'], 'a'),
      a: page(['y'], 'b'),
      b: page(['z'], 'a'),
    };
    const { client } = await setup((req, res) =>
      sendJson(res, 200, loop[(req.body as { cursor?: string }).cursor ?? ''] ?? page([], null)),
    );
    const seen: unknown[] = [];
    const error = await caught(
      (async () => {
        for await (const p of client.pages('fingerprints', {})) seen.push(p.cursor);
      })(),
    );
    expect(error).toBeInstanceOf(CursorLoopError);
    expect(error.message).toBe('cursor loop: the service returned cursor "a" twice');
    expect(seen).toEqual([null, 'a']);
  });

  it('webhooks.list and domains.list walk every page', async () => {
    const { server, client } = await setup((req, res) => {
      const cursor = (req.body as { cursor?: string }).cursor;
      if (req.path === '/v1/search/webhooks') {
        sendJson(
          res,
          200,
          cursor === undefined
            ? { item_count: 1, items: [{ webhook_uuid: 'w1' }], next_cursor: 'n' }
            : { item_count: 1, items: [{ webhook_uuid: 'w2' }], next_cursor: null },
        );
      } else {
        sendJson(res, 200, { item_count: 1, items: [{ domain_uuid: 'd1' }], next_cursor: null });
      }
    });
    const hooks: unknown[] = [];
    for await (const hook of client.webhooks.list()) hooks.push(hook);
    expect(hooks).toEqual([{ webhook_uuid: 'w1' }, { webhook_uuid: 'w2' }]);
    const domains: unknown[] = [];
    for await (const domain of client.domains.list()) domains.push(domain);
    expect(domains).toEqual([{ domain_uuid: 'd1' }]);
    expect(server.seen.map((r) => [r.path, r.body])).toEqual([
      ['/v1/search/webhooks', { limit: 25 }],
      ['/v1/search/webhooks', { limit: 25, cursor: 'n' }],
      ['/v1/search/domains', { limit: 25 }],
    ]);
  });
});

describe('v2', () => {
  it('uses the v2 paths, the v2 header and limit 25', async () => {
    const { server, client } = await setup(
      (req, res) => {
        if (req.path === '/v2/authentications/missing') return sendJson(res, 404, {});
        if (req.path.startsWith('/v2/authentications/')) return sendJson(res, 200, { item: item('a1') });
        if (req.path === '/v2/lookup/authentications/sku-1') return sendJson(res, 404, {});
        sendJson(res, 200, page(['a1'], null));
      },
      { apiVersion: '2' },
    );
    expect(client.apiVersion).toBe('2');
    await client.health();
    const result = await client.searchPage('authentications', {
      cursor: 'k1',
      filters: [{ key: 'status.result.id', value: 'authentic' }],
    });
    expect(result.items).toEqual([item('a1')]);
    expect(await client.get('authentications', 'a1')).toMatchObject({ item: item('a1'), warnings: [] });
    expect(await client.get('authentications', 'missing')).toBeNull();
    expect(await client.lookup('sku-1')).toBeNull();

    const [health, search, get] = server.seen;
    expect(health?.path).toBe('/v2/search/authentications');
    expect(health?.body).toMatchObject({ limit: 1 });
    expect(search?.headers['api-version']).toBe('2.0.0');
    expect(search?.headers.authorization).toBe(`Token ${TOKEN}`);
    expect(search?.body).toEqual({
      limit: 25,
      filters: [{ key: 'status.result.id', value: 'authentic' }],
      format_options: null,
      range: null,
      cursor: 'k1',
    });
    expect(get?.path).toBe('/v2/authentications/a1');
    expect(get?.query.get('include_images')).toBe('true');
    expect(get?.query.get('include_catalog')).toBe('true');
  });

  it('takes the header and paths from config', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, 200, { item: item('f1') }), {
      apiVersion: '2',
      v2: { apiVersionHeader: '2.1.0', paths: { getFingerprint: '/v2/fp/{service_id}', searchDomains: undefined } },
    });
    await client.get('fingerprints', 'f1');
    expect(server.seen[0]?.path).toBe('/v2/fp/f1');
    expect(server.seen[0]?.headers['api-version']).toBe('2.1.0');
    // An unset override keeps the default path.
    await caught(
      (async () => {
        for await (const _domain of client.domains.list()) break;
      })(),
    );
    expect(server.seen[1]?.path).toBe('/v2/search/domains');
  });

  it('retries a 503 from the catalog; the voucher comes back as a Secret', async () => {
    const catalog = {
      categories: [
        {
          product_category: 'luxury',
          customer_product_group: 'bags',
          display: { product_category: 'Luxury', customer_product_group: 'Bags' },
          brands: [],
        },
      ],
    };
    const { server, client } = await setup(
      (req, res, index) => {
        if (req.path === '/v2/supported-catalog')
          return index === 0 ? sendJson(res, 503, {}) : sendJson(res, 200, catalog);
        if (req.path === '/v2/login-vouchers')
          return sendJson(res, 200, { login_voucher: 'enc-voucher', username: 'u1' });
        sendJson(res, 409, { message: 'user already has a voucher' });
      },
      { apiVersion: '2' },
    );
    expect(await client.catalog()).toEqual(catalog);
    const voucher = await client.createVoucher({ userId: 'u-1', email: 'a@example.com' });
    expect(voucher.username).toBe('u1');
    expect(voucher.loginVoucher.reveal()).toBe('enc-voucher');
    expect(String(voucher.loginVoucher)).toBe('[redacted]');
    expect(server.seen[2]?.body).toEqual({
      unique_user_id: 'u-1',
      email: 'a@example.com',
      first_name: null,
      last_name: null,
    });
  });
});
