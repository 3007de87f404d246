import { describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { parseDeliveryBody, deliveryId } from '../../src/webhooks/delivery-body.js';
import { parseDomainVerifications, verificationValue } from '../../src/webhooks/domain-verification.js';
import { explainManagementFailure } from '../../src/webhooks/management-failure.js';
import { deliveryItemApiVersion } from '../../src/webhooks/normalize-delivery.js';
import { refreshReason } from '../../src/webhooks/refresh-decision.js';
import { strictUtf8 } from '../../src/webhooks/strict-utf8.js';
import { buildWebhookCreate, checkEndpoint, parseFilterFlag } from '../../src/webhooks/webhook-create-request.js';
import { candidateSecrets, expectedSecret } from '../../src/webhooks/webhook-secrets.js';

describe('parseFilterFlag', () => {
  it.each([
    ['activity.name=authentication', { key: 'activity.name', value: 'authentication' }],
    ['activity.name=authentication,fingerprint', { key: 'activity.name', values: ['authentication', 'fingerprint'] }],
    ['activity.name=fingerprint,fingerprint', { key: 'activity.name', value: 'fingerprint' }],
    ['activity.form_factor=lightbox,free_camera', { key: 'activity.form_factor', values: ['lightbox', 'free_camera'] }],
    ['owner.user.username=bob', { key: 'owner.user.username', value: 'bob' }],
  ])('%s', (flag, filter) => {
    expect(parseFilterFlag(flag)).toEqual(filter);
  });

  it.each([
    ['activity.name', /key=value/],
    ['=authentication', /key=value/],
    ['status.flag=x', /not a webhook filter key/],
    ['constructor=x', /not a webhook filter key/],
    ['activity.name=auth', /authentication, fingerprint; got 'auth'/],
    ['activity.form_factor=phone', /lightbox, microscopic, free_camera/],
    ['owner.user.username=', /at least one value/],
    ['activity.name=authentication,', /at least one value/],
  ])('refuses %s', (flag, message) => {
    expect(() => parseFilterFlag(flag)).toThrow(message);
  });
});

describe('checkEndpoint', () => {
  it.each([
    ['https://hooks.example.com/ivs', 'https://hooks.example.com/ivs'],
    ['http://127.0.0.1:8080/webhooks', 'http://127.0.0.1:8080/webhooks'],
    ['http://localhost:8080/webhooks', 'http://localhost:8080/webhooks'],
    ['http://[::1]:8080/webhooks', 'http://[::1]:8080/webhooks'],
  ])('accepts %s', (url, expected) => expect(checkEndpoint(url)).toBe(expected));

  it.each([
    [undefined, /--url is required/],
    ['hooks.example.com/ivs', /not a URL/],
    ['http://hooks.example.com/ivs', /https:\/\//],
    ['http://127.0.0.1.nip.io/ivs', /https:\/\//],
    ['ftp://hooks.example.com/', /https:\/\//],
  ])('refuses %s', (url, message) => expect(() => checkEndpoint(url)).toThrow(message));
});

describe('buildWebhookCreate', () => {
  const base = {
    url: 'https://hooks.example.com/ivs',
    secret: 'x'.repeat(20),
    envSecret: undefined,
    channel: undefined,
    filters: ['activity.name=authentication'],
  };

  it('builds the request, secret wrapped', () => {
    const request = buildWebhookCreate({ ...base, channel: 'shop-1' });
    expect(request.endpoint).toBe('https://hooks.example.com/ivs');
    expect(request.secretKey).toBeInstanceOf(Secret);
    expect(request.secretKey.reveal()).toBe('x'.repeat(20));
    expect(request.channel).toBe('shop-1');
    expect(request.filters).toEqual([{ key: 'activity.name', value: 'authentication' }]);
  });

  it('takes the secret from the environment when --secret is absent; the flag wins', () => {
    expect(buildWebhookCreate({ ...base, secret: undefined, envSecret: 'e'.repeat(24) }).secretKey.reveal()).toBe(
      'e'.repeat(24),
    );
    expect(buildWebhookCreate({ ...base, envSecret: 'e'.repeat(24) }).secretKey.reveal()).toBe('x'.repeat(20));
  });

  it.each([
    [{ secret: undefined }, /a secret is required/],
    [{ secret: 'short-secret-123' }, /at least 20 characters \(it has 16\)/],
    [{ filters: [] }, /activity.name is required/],
    [{ filters: ['activity.form_factor=lightbox'] }, /activity.name is required/],
    [{ filters: ['activity.name=authentication', 'activity.name=fingerprint'] }, /given twice/],
    [{ channel: ' ' }, /--channel must not be empty/],
  ])('refuses %o', (patch, message) => {
    expect(() => buildWebhookCreate({ ...base, ...patch })).toThrow(message);
  });

  it('never puts the secret in a message', () => {
    const secret = 'my-secret-19-chars!';
    expect(() => buildWebhookCreate({ ...base, secret })).toThrow(/at least 20/);
    try {
      buildWebhookCreate({ ...base, secret });
    } catch (error) {
      expect(String(error)).not.toContain(secret);
    }
  });
});

describe('explainManagementFailure', () => {
  it.each([
    [
      'create',
      409,
      'at most 10 active webhooks are allowed',
      {},
      '10 webhooks are already active: deactivate one first (ivsync webhooks list)',
    ],
    [
      'create',
      403,
      'endpoint.value: the domain x.org is not registered to your organization',
      {},
      "the endpoint's domain is not registered to your organization (ivsync domains list)",
    ],
    [
      'create',
      403,
      'owner.user.username: the user is not in your organization',
      {},
      'a username in --filter owner.user.username is not in your organization',
    ],
    [
      'create',
      403,
      'forbidden',
      {},
      "the endpoint's domain is not registered to your organization (ivsync domains list)",
    ],
    [
      'create',
      403,
      'forbidden',
      { hasUsernameFilter: true },
      "the endpoint's domain is not registered to your organization (ivsync domains list), " +
        'or a username in --filter owner.user.username is not in your organization',
    ],
    ['create', 500, 'oops', {}, null],
    [
      'show',
      403,
      'unknown webhook or not yours',
      { uuid: 'u-1' },
      'webhook u-1 does not exist or is not yours (ivsync webhooks list)',
    ],
    [
      'show',
      404,
      'unknown webhook',
      { uuid: 'u-1' },
      'webhook u-1 does not exist or is not yours (ivsync webhooks list)',
    ],
    [
      'deactivate',
      403,
      '',
      { uuid: 'u-2' },
      'webhook u-2 is not active, does not exist, or is not yours (ivsync webhooks list)',
    ],
    ['deactivate', 409, '', { uuid: 'u-2' }, null],
  ] as const)('%s %s %s', (operation, status, text, context, sentence) => {
    expect(explainManagementFailure(operation, status, text, context)).toBe(sentence);
  });
});

describe('refreshReason', () => {
  it.each([
    [undefined, 5, 'unknown'],
    [undefined, null, 'unknown'],
    [null, 5, null],
    [4, 5, null],
    [5, 5, null],
    [7, 5, null],
    [4, 6, 'gap'],
    [4, null, null],
  ] as const)('stored %s, incoming %s', (stored, incoming, reason) => {
    expect(refreshReason(stored, incoming)).toBe(reason);
  });
});

describe('delivery bodies', () => {
  it.each([
    [
      '{"webhook_uuid":"u","channel":"c","items":[]}',
      { ok: true, body: { webhookUuid: 'u', channel: 'c', items: [], itemTexts: [] } },
    ],
    [
      '{"items":[1],"future_key":{}}',
      { ok: true, body: { webhookUuid: null, channel: null, items: [1], itemTexts: ['1'] } },
    ],
    ['not json', { ok: false, reason: 'the body is not valid JSON' }],
    ['[]', { ok: false, reason: 'the body is not a JSON object' }],
    ['{"webhook_uuid":"u"}', { ok: false, reason: 'the body has no items array' }],
    ['{"webhook_uuid":7,"items":[]}', { ok: false, reason: 'webhook_uuid is not a string' }],
  ])('%s', (text, parsed) => {
    expect(parseDeliveryBody(text)).toEqual(parsed);
  });

  it('ids a delivery by webhook and bytes', () => {
    const body = Buffer.from('{"items":[]}');
    expect(deliveryId('u', body)).toBe(deliveryId('u', Buffer.from('{"items":[]}')));
    expect(deliveryId('u', body)).not.toBe(deliveryId('v', body));
    expect(deliveryId('u', body)).not.toBe(deliveryId('u', Buffer.from('{"items": []}')));
  });

  it.each([
    [{ timestamp: { epoch: 1, display: 'x' } }, '1.4'],
    [{ timestamp: { created_at: '2026-01-01T00:00:00Z' } }, '2'],
    [{ timestamp: { created_at: '2026-01-01T00:00:00Z', epoch: 1 } }, '1.4'],
    [{}, '1.4'],
    ['not an item', '1.4'],
  ])('reads the interface of %o', (item, version) => {
    expect(deliveryItemApiVersion(item)).toBe(version);
  });
});

describe('strictUtf8', () => {
  it.each([
    ['ASCII', [0x7b, 0x7d], '{}'],
    ['two, three and four bytes', [0xc3, 0xa9, 0xe6, 0x97, 0xa5, 0xf0, 0x9f, 0x98, 0x80], 'é日😀'],
    ['a byte order mark, kept', [0xef, 0xbb, 0xbf, 0x7b, 0x7d], '\uFEFF{}'],
    ['nothing', [], ''],
    ['a lone continuation byte', [0x7b, 0x80, 0x7d], undefined],
    ['a sequence cut short at the end', [0x7b, 0xe6, 0x97], undefined],
    ['an overlong encoding', [0xc0, 0xaf], undefined],
    ['an encoded surrogate', [0xed, 0xa0, 0x80], undefined],
    ['a byte never valid', [0xff], undefined],
  ])('%s', (_name, bytes, text) => {
    expect(strictUtf8(Uint8Array.from(bytes))).toBe(text);
  });
});

describe('secrets by webhook', () => {
  const own = new Secret('own-secret-of-20-chars!');
  const fallback = new Secret('default-secret-20-chars');
  const secrets = { byUuid: { 'u-own': own }, defaultSecret: fallback };
  it.each([
    ['u-own', own],
    ['u-other', fallback],
    [null, fallback],
    ['toString', fallback],
  ] as const)('%s', (uuid, secret) => {
    expect(expectedSecret(secrets, uuid)).toBe(secret);
  });
  it('without a default, a webhook without its own secret has none', () => {
    expect(expectedSecret({ byUuid: { 'u-own': own }, defaultSecret: undefined }, 'u-other')).toBeUndefined();
  });
  it('lists each secret once', () => {
    expect(candidateSecrets({ byUuid: { a: own, b: own }, defaultSecret: fallback })).toEqual([own, fallback]);
  });
});

describe('domain verification pages', () => {
  it('parses TOKEN=VALUE flags; the value may hold =', () => {
    expect(parseDomainVerifications(['abc123=long-random=value', 'x_y=z'])).toEqual({
      abc123: 'long-random=value',
      x_y: 'z',
    });
  });
  it.each([['novalue'], ['=v'], ['a/b=v'], ['a='], ['../x=v']])('refuses %s', (flag) => {
    expect(() => parseDomainVerifications([flag])).toThrow(/TOKEN=VALUE/);
  });
  it('serves only configured tokens', () => {
    const v = { abc: 'VALUE' };
    expect(verificationValue('/.well-known/service-domain-verification/abc', v)).toBe('VALUE');
    expect(verificationValue('/.well-known/service-domain-verification/abd', v)).toBeUndefined();
    expect(verificationValue('/.well-known/service-domain-verification/', v)).toBeUndefined();
    expect(verificationValue('/.well-known/service-domain-verification/toString', v)).toBeUndefined();
    expect(verificationValue('/abc', v)).toBeUndefined();
  });
});
