import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { checkSignature, verifySignature, type SignatureVerdict } from '../../src/webhooks/verify-signature.js';

const A = new Secret('secret-A-of-more-than-20-chars');
const B = new Secret('secret-B-of-more-than-20-chars');
const BODY =
  '{"channel":"default","webhook_uuid":"u-1","items":[{"service_id":"s-1","update_counter":3}],"note":"caf\u00e9 ' +
  '\u2713"}';

const sig = (secret: Secret, body: string | Buffer = BODY): string =>
  createHmac('sha256', secret.reveal()).update(body).digest('base64');
const hex = (secret: Secret): string => createHmac('sha256', secret.reveal()).update(BODY).digest('hex');

describe('verifySignature', () => {
  const cases: Array<[string, string | string[] | undefined, SignatureVerdict]> = [
    ['the service header', `SHA256:${sig(A)}`, 'ok'],
    ['the hash name in lower case (case-insensitive by decision)', `sha256:${sig(A)}`, 'ok'],
    ['surrounding whitespace', `  SHA256:${sig(A)} `, 'ok'],
    ['the other configured secret', `SHA256:${sig(B)}`, 'ok'],
    ['no header', undefined, 'missing'],
    ['an empty header', '', 'missing'],
    ['a secret nobody configured', `SHA256:${sig(new Secret('somebody-elses-secret-value'))}`, 'mismatch'],
    ['the signature of another body', `SHA256:${sig(A, `${BODY} `)}`, 'mismatch'],
    ['sha256=<hex> (another service style)', `sha256=${hex(A)}`, 'malformed'],
    ['sha256=<base64>', `sha256=${sig(A)}`, 'malformed'],
    ['three parts', `SHA256:${sig(A)}:extra`, 'malformed'],
    ['no hash name', `:${sig(A)}`, 'malformed'],
    ['no signature', 'SHA256:', 'malformed'],
    ['another hash name', `SHA1:${sig(A)}`, 'malformed'],
    ['SHA-256 spelled with a dash', `SHA-256:${sig(A)}`, 'malformed'],
    ['hex instead of base64', `SHA256:${hex(A)}`, 'malformed'],
    ['base64 without padding', `SHA256:${sig(A).replace(/=+$/, '')}`, 'malformed'],
    [
      'base64url alphabet',
      `SHA256:${sig(A).replace(/\+/g, '-').replace(/\//g, '_')}`,
      sig(A).match(/[+/]/) ? 'malformed' : 'ok',
    ],
    ['a 16-byte digest', `SHA256:${Buffer.alloc(16, 1).toString('base64')}`, 'malformed'],
    ['two headers', [`SHA256:${sig(A)}`, `SHA256:${sig(B)}`], 'malformed'],
    ['a space inside', `SHA256: ${sig(A)}`, 'malformed'],
  ];
  it.each(cases)('%s', (_name, header, verdict) => {
    expect(verifySignature(Buffer.from(BODY, 'utf8'), header, [A, B])).toBe(verdict);
  });

  it('signs the UTF-8 bytes: the string and its bytes verify alike', () => {
    expect(verifySignature(BODY, `SHA256:${sig(A)}`, [A])).toBe('ok');
    expect(verifySignature(Buffer.from(BODY, 'latin1'), `SHA256:${sig(A)}`, [A])).toBe('mismatch');
  });

  it('with no secret configured nothing verifies', () => {
    expect(verifySignature(BODY, `SHA256:${sig(A)}`, [])).toBe('mismatch');
  });

  it('tells which secrets signed', () => {
    const check = checkSignature(BODY, `SHA256:${sig(B)}`, [A, B]);
    expect(check.verdict).toBe('ok');
    expect(check.matched).toEqual([B]);
  });
});
