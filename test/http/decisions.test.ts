import { describe, expect, it } from 'vitest';
import { exposureOf, isLoopback, requireExposure } from '../../src/http/exposure.js';
import { windowState } from '../../src/http/window-state.js';

describe('isLoopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.3.4.5', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.4', false],
    ['example.internal', false],
  ])('%s -> %s', (host, loopback) => expect(isLoopback(host)).toBe(loopback));
});

describe('exposureOf', () => {
  it.each([
    ['127.0.0.1', undefined, true, 'none'],
    ['127.0.0.1', 'tok', true, 'none'],
    ['0.0.0.0', 'tok', true, 'bearer'],
    ['0.0.0.0', undefined, true, 'refused'],
    ['0.0.0.0', '', true, 'refused'],
    // Only public routes (webhooks serve): nothing to guard.
    ['0.0.0.0', undefined, false, 'none'],
  ] as const)('host %s, token %s, private routes %s -> %s', (host, token, privateRoutes, auth) => {
    expect(exposureOf(host, token, privateRoutes).auth).toBe(auth);
  });

  it('refuses in one line naming the variable, and never shows a token', () => {
    expect(() => requireExposure('0.0.0.0', {})).toThrow(
      /^listening on 0\.0\.0\.0 \(beyond loopback\) needs IVS_UI_TOKEN set/,
    );
    const exposure = requireExposure('0.0.0.0', { IVS_UI_TOKEN: 'very-secret-ui-token' });
    expect(JSON.stringify(exposure)).not.toContain('very-secret-ui-token');
    expect(String(exposure.auth === 'bearer' ? exposure.token : '')).not.toContain('very-secret-ui-token');
  });
});

describe('windowState', () => {
  it.each([
    ['done', 100, 'done'],
    ['sealed', 100, 'sealed'],
    ['running', null, 'running'],
    ['failed', null, 'failed'],
    ['pending', null, 'pending'],
    // A complete pass covered it once: reset or verify --repair reopened it.
    ['pending', 100, 'reopened'],
  ] as const)('%s with synced_to %s -> %s', (status, syncedTo, state) =>
    expect(windowState(status, syncedTo)).toBe(state),
  );
});
