import { describe, expect, it } from 'vitest';
import { alertUrlLabel, alertUrlsOf } from '../../src/config/alert-urls.js';
import {
  decideAlerts,
  INITIAL_ALERT_STATE,
  type AlertEvent,
  type AlertKind,
  type AlertState,
} from '../../src/daemon/alert-decision.js';
import { alertMessage } from '../../src/daemon/alert-message.js';
import { alertRetryDelayMs } from '../../src/daemon/alert-retry.js';
import { oldestCheck, staleCheckBound } from '../../src/daemon/stale-checks.js';
import type { RefreshTierState } from '../../src/store/sink.js';

const AT = '2026-11-26T10:00:00.000000Z';
const ok = { status: 'succeeded' } as const;
const failed = (error: string, runId?: string) => ({ status: 'failed', error, runId }) as const;
const run = (
  outcome: Extract<AlertEvent, { type: 'run' }>['outcome'],
  account: string | null = 'default',
  command: 'sync' | 'backfill' | 'verify' = 'sync',
  at = AT,
): AlertEvent => ({ type: 'run', command, account, outcome, at });
const tick = (failedTicksInARow: number, backoffUntil: string | null = null): AlertEvent => ({
  type: 'tick',
  failedTicksInARow,
  backoffUntil,
  error: failedTicksInARow > 0 ? 'default: boom' : null,
});
const hooks = (healthy: boolean, lastDeliveryAt: string | null = AT, configured = true): AlertEvent => ({
  type: 'webhooks',
  configured,
  healthy,
  lastDeliveryAt,
});
const verify = (resources: string[], account = 'default'): AlertEvent => ({
  type: 'verify',
  account,
  runId: 'v1',
  findings: resources.map((resource) => ({ resource })),
});

const checks = (ageSeconds: number | null, account = 'default', boundSeconds = 900): AlertEvent => ({
  type: 'checks',
  account,
  ageSeconds,
  boundSeconds,
  resource: 'authentications',
});

/** The kinds a sequence of events raises, in order. */
function kindsOf(events: readonly AlertEvent[]): AlertKind[] {
  let state: AlertState = INITIAL_ALERT_STATE;
  const kinds: AlertKind[] = [];
  for (const event of events) {
    const decision = decideAlerts(state, event);
    state = decision.state;
    kinds.push(...decision.alerts.map((a) => a.kind));
  }
  return kinds;
}

describe('when the daemon alerts', () => {
  it.each<[string, AlertEvent[], AlertKind[]]>([
    ['runs that succeed: nothing', [run(ok), run(ok), run(ok)], []],
    ['the first run fails: failed', [run(failed('boom'))], ['run_failed']],
    [
      'a failure, then a success: failed, recovered',
      [run(ok), run(failed('boom')), run(ok)],
      ['run_failed', 'run_recovered'],
    ],
    [
      'five failures in a row: one message, not five',
      [run(failed('a')), run(failed('b')), run(failed('c')), run(failed('d')), run(failed('e'))],
      ['run_failed'],
    ],
    [
      'fail, recover, fail again: each change',
      [run(failed('a')), run(ok), run(failed('b')), run(ok)],
      ['run_failed', 'run_recovered', 'run_failed', 'run_recovered'],
    ],
    [
      'accounts are apart: one failing does not hide the other',
      [run(failed('a'), 'one'), run(failed('b'), 'two'), run(ok, 'one')],
      ['run_failed', 'run_failed', 'run_recovered'],
    ],
    [
      'commands are apart: a verify failing is not a sync failing',
      [run(failed('a'), 'default', 'verify'), run(ok, 'default', 'sync')],
      ['run_failed'],
    ],
    ['a lease held by another daemon (its tick): nothing', [run({ status: 'held', holder: 'box:1:ab' })], []],
    [
      'a lease taken over mid-run: taken over, each time',
      [
        run({ status: 'held', holder: 'box:1:ab', lost: true }),
        run({ status: 'held', holder: 'box:1:ab', lost: true }),
      ],
      ['lease_taken_over', 'lease_taken_over'],
    ],
    [
      'an interrupted run is no change',
      [run(failed('a')), run({ status: 'interrupted' }), run(ok)],
      ['run_failed', 'run_recovered'],
    ],
    ['a backfill that ends: finished', [run(ok, null, 'backfill')], ['backfill_finished']],
    [
      'a backfill that failed, then ends: failed, finished',
      [run(failed('a'), null, 'backfill'), run(failed('b'), null, 'backfill'), run(ok, null, 'backfill')],
      ['run_failed', 'backfill_finished'],
    ],
    ['ticks below the threshold: nothing', [tick(1), tick(2)], []],
    ['the backoff starts: once, however long it lasts', [tick(3, AT), tick(4, AT), tick(5, AT)], ['backoff']],
    [
      'a success ends the backoff; a later one alerts again',
      [tick(3, AT), tick(0), tick(3, AT)],
      ['backoff', 'backoff'],
    ],
    ['a failed tick after the backoff expired stays in it', [tick(3, AT), tick(4), tick(5, AT)], ['backoff']],
    ['no webhook secret: never', [hooks(false, null, false), hooks(false, AT, false)], []],
    ['a stream that never delivered: not quiet, it was never set up', [hooks(false, null), hooks(false, null)], []],
    [
      'healthy, then quiet, then healthy: quiet, healthy',
      [hooks(true), hooks(false), hooks(false), hooks(true)],
      ['webhooks_quiet', 'webhooks_healthy'],
    ],
    ['quiet at start after earlier deliveries: quiet', [hooks(false, AT)], ['webhooks_quiet']],
    [
      'never delivered, then its first delivery, then quiet: only quiet',
      [hooks(false, null), hooks(true), hooks(false)],
      ['webhooks_quiet'],
    ],
    ['healthy at start: nothing', [hooks(true), hooks(true)], []],
    [
      'verify drift: once while it lasts, again after a clean verify',
      [verify([]), verify(['authentications']), verify(['authentications']), verify([]), verify(['fingerprints'])],
      ['verify_drift', 'verify_drift'],
    ],
    [
      'verify drift per account',
      [verify(['authentications'], 'one'), verify(['authentications'], 'two')],
      ['verify_drift', 'verify_drift'],
    ],
    ['checks within the bound, or no non-final session: nothing', [checks(10), checks(900), checks(null)], []],
    [
      'checks past the bound: once while it lasts, fresh when back within it',
      [checks(10), checks(901), checks(2000), checks(5000), checks(30), checks(40)],
      ['checks_stale', 'checks_fresh'],
    ],
    ['past the bound at the first look: stale', [checks(901)], ['checks_stale']],
    ['the last non-final session turned final: fresh', [checks(901), checks(null)], ['checks_stale', 'checks_fresh']],
    [
      'stale checks per account',
      [checks(901, 'one'), checks(901, 'two'), checks(1, 'one'), checks(902, 'two')],
      ['checks_stale', 'checks_stale', 'checks_fresh'],
    ],
    [
      'a bound raised over the age (the stream became healthy): fresh',
      [checks(901), checks(901, 'default', 90_000)],
      ['checks_stale', 'checks_fresh'],
    ],
  ])('%s', (_name, events, kinds) => {
    expect(kindsOf(events)).toEqual(kinds);
  });

  it('stale checks name the age, the bound and the resource of the oldest', () => {
    const stale = decideAlerts(INITIAL_ALERT_STATE, checks(1200));
    expect(stale.alerts).toEqual([
      { kind: 'checks_stale', account: 'default', ageSeconds: 1200, boundSeconds: 900, resource: 'authentications' },
    ]);
    const fresh = decideAlerts(stale.state, checks(12));
    expect(fresh.alerts).toEqual([{ kind: 'checks_fresh', account: 'default', ageSeconds: 12, boundSeconds: 900 }]);
    expect(fresh.state).toEqual(INITIAL_ALERT_STATE);
  });

  it('a recovery says since when and how many runs failed; a failure its run and error', () => {
    let state = INITIAL_ALERT_STATE;
    const first = decideAlerts(
      state,
      run(failed('HTTP 500', 'run-1'), 'default', 'sync', '2026-11-26T10:00:00.000000Z'),
    );
    expect(first.alerts).toEqual([
      { kind: 'run_failed', account: 'default', command: 'sync', runId: 'run-1', error: 'HTTP 500' },
    ]);
    state = decideAlerts(
      first.state,
      run(failed('HTTP 500', 'run-2'), 'default', 'sync', '2026-11-26T10:05:00.000000Z'),
    ).state;
    const recovered = decideAlerts(state, run(ok, 'default', 'sync', '2026-11-26T10:10:00.000000Z'));
    expect(recovered.alerts).toEqual([
      { kind: 'run_recovered', account: 'default', command: 'sync', since: '2026-11-26T10:00:00.000000Z', failures: 2 },
    ]);
    expect(recovered.state).toEqual(INITIAL_ALERT_STATE);
  });

  it('verify drift names the resources and the number of findings', () => {
    const { alerts } = decideAlerts(INITIAL_ALERT_STATE, verify(['fingerprints', 'authentications', 'fingerprints']));
    expect(alerts).toEqual([
      {
        kind: 'verify_drift',
        account: 'default',
        command: 'verify',
        runId: 'v1',
        findings: 3,
        resource: 'authentications,fingerprints',
      },
    ]);
  });
});

describe('the staleness bound of the refresh', () => {
  it.each<[string, Parameters<typeof staleCheckBound>[0], number]>([
    [
      'the default schedule, no webhooks: three gaps',
      { configured: undefined, runSeconds: 300, maxIntervalSeconds: 86_400, webhooksHealthy: false },
      900,
    ],
    [
      'a healthy stream adds the longest back-off',
      { configured: undefined, runSeconds: 300, maxIntervalSeconds: 86_400, webhooksHealthy: true },
      87_300,
    ],
    ['every second', { configured: undefined, runSeconds: 1, maxIntervalSeconds: 86_400, webhooksHealthy: false }, 3],
    [
      'a fractional gap rounds up',
      { configured: undefined, runSeconds: 0.5, maxIntervalSeconds: 86_400, webhooksHealthy: false },
      2,
    ],
    [
      'alerts.staleCheckSeconds wins',
      { configured: 60, runSeconds: 300, maxIntervalSeconds: 86_400, webhooksHealthy: true },
      60,
    ],
  ])('%s', (_name, input, bound) => {
    expect(staleCheckBound(input)).toBe(bound);
  });

  it("the oldest check is the account's oldest over every tier and resource", () => {
    const now = Date.parse('2026-11-26T10:00:00Z') / 1000;
    const row = (
      account: string,
      resource: 'authentications' | 'fingerprints',
      tier: RefreshTierState['tier'],
      oldest: string | null,
      sessions = 1,
    ): RefreshTierState => ({
      account,
      resource,
      tier,
      sessions,
      oldestCheckAt: oldest,
      p50CheckAt: oldest,
      p95CheckAt: oldest,
    });
    const rows = [
      row('default', 'authentications', 'hot', '2026-11-26T09:59:00Z'),
      row('default', 'fingerprints', 'unchecked', '2026-11-26T09:40:00Z'),
      row('default', 'authentications', 'backoff', '2026-11-26T09:50:00Z'),
      row('other', 'authentications', 'backoff', '2026-11-25T10:00:00Z'),
      row('default', 'fingerprints', 'hot', null, 0),
    ];
    expect(oldestCheck(rows, 'default', now)).toEqual({ ageSeconds: 1200, resource: 'fingerprints' });
    expect(oldestCheck(rows, 'other', now)).toEqual({ ageSeconds: 86_400, resource: 'authentications' });
    expect(oldestCheck(rows, 'none', now)).toEqual({ ageSeconds: null, resource: undefined });
  });
});

describe('the alert message', () => {
  const facts = { at: AT, daemon: 'box:42:ab12cd34', link: 'http://127.0.0.1:9090/' };
  it.each<[string, Parameters<typeof alertMessage>[0], string, string]>([
    [
      'a failure',
      {
        kind: 'run_failed',
        account: 'default',
        command: 'sync',
        runId: 'r1',
        error: 'POST /v1/search/authentications failed with HTTP 500',
      },
      'ivsync [default]: sync failed (run r1): POST /v1/search/authentications failed with HTTP 500',
      'problem',
    ],
    [
      'a recovery',
      { kind: 'run_recovered', account: 'default', command: 'sync', since: AT, failures: 2 },
      `ivsync [default]: sync recovered after 2 failed run(s) since ${AT}`,
      'resolved',
    ],
    [
      'a backoff',
      { kind: 'backoff', account: null, failures: 3, until: AT, error: 'default: boom' },
      `ivsync: 3 failed ticks in a row; backing off until ${AT}: default: boom`,
      'problem',
    ],
    [
      'a takeover',
      { kind: 'lease_taken_over', account: 'default', command: 'sync', holder: 'box:1:ab' },
      'ivsync [default]: sync stopped: box:1:ab took its lease over (this daemon missed its heartbeats)',
      'info',
    ],
    [
      'a quiet stream',
      { kind: 'webhooks_quiet', account: null, lastDeliveryAt: AT },
      `ivsync: the webhook stream went quiet (last delivery ${AT}); sync polls non-final sessions instead`,
      'problem',
    ],
    [
      'drift',
      {
        kind: 'verify_drift',
        account: 'default',
        command: 'verify',
        runId: 'v1',
        findings: 3,
        resource: 'authentications',
      },
      'ivsync [default]: verify found 3 finding(s) in authentications (run v1); ivsync verify --repair fixes them',
      'problem',
    ],
    [
      'a backfill',
      { kind: 'backfill_finished', account: null, command: 'backfill' },
      'ivsync: the background backfill finished',
      'info',
    ],
    [
      'stale checks',
      { kind: 'checks_stale', account: 'default', ageSeconds: 1200, boundSeconds: 900, resource: 'fingerprints' },
      'ivsync [default]: refresh checks deferred: the oldest non-final session (fingerprints) was last checked ' +
        '1200 s ago, past the 900 s bound; raise the refresh budget or the rate',
      'problem',
    ],
    [
      'checks caught up',
      { kind: 'checks_fresh', account: 'default', ageSeconds: 12, boundSeconds: 900 },
      'ivsync [default]: refresh checks caught up: the oldest was checked 12 s ago, within 900 s',
      'resolved',
    ],
    [
      'no non-final session left',
      { kind: 'checks_fresh', account: 'default', boundSeconds: 900 },
      'ivsync [default]: refresh checks caught up: no non-final session is left',
      'resolved',
    ],
  ])('%s', (_name, seed, text, severity) => {
    const message = alertMessage(seed, facts);
    expect(message.text).toBe(text);
    expect(message.severity).toBe(severity);
    expect(message).toMatchObject({
      kind: seed.kind,
      account: seed.account,
      at: AT,
      daemon: facts.daemon,
      link: facts.link,
    });
  });

  it('every field is present, null when unknown; the text clips a long error to one line', () => {
    const message = alertMessage(
      { kind: 'run_failed', account: 'default', error: `first line\n${'x'.repeat(1000)}` },
      { at: AT, daemon: 'd' },
    );
    expect(Object.keys(message).sort()).toEqual(
      [
        'account',
        'at',
        'bound_seconds',
        'check_age_seconds',
        'command',
        'daemon',
        'error',
        'failures',
        'findings',
        'holder',
        'kind',
        'last_delivery_at',
        'link',
        'resource',
        'run_id',
        'severity',
        'since',
        'text',
        'until',
      ].sort(),
    );
    expect(message.text).not.toContain('\n');
    expect(message.text.length).toBeLessThan(400);
    expect(message.error).toHaveLength(1011);
    expect(message.run_id).toBeNull();
  });
});

describe('the retry of an alert', () => {
  const options = { retries: 3, baseMs: 1_000, maxMs: 5_000 };
  it.each<[string, number, number | undefined, string | undefined, number]>([
    ['a refused connection: retried', 1, undefined, 'ECONNREFUSED', 1_000],
    ['a time-out: retried, doubled', 2, undefined, 'ETIMEDOUT', 2_000],
    ['503: retried, capped', 3, 503, undefined, 4_000],
    ['429: retried', 1, 429, undefined, 1_000],
    ['past the retries: given up', 4, 503, undefined, 0],
    ['404 (a revoked hook): never retried', 1, 404, undefined, 0],
    ['400 (a malformed body): never retried', 1, 400, undefined, 0],
  ])('%s', (_name, attempt, status, code, expected) => {
    expect(alertRetryDelayMs({ attempt, status, code }, options)).toBe(expected);
  });
  it('caps the wait', () => {
    expect(
      alertRetryDelayMs({ attempt: 3, status: 500, code: undefined }, { retries: 9, baseMs: 1_000, maxMs: 3_000 }),
    ).toBe(3_000);
  });
});

describe('alert URLs', () => {
  it.each([
    ['https://hooks.slack.com/services/T000/B000/XXXXsecretXXXX', 'https://hooks.slack.com/…'],
    ['http://127.0.0.1:9000/alert?token=secret', 'http://127.0.0.1:9000/…'],
    ['not a url', '[not a URL]'],
  ])('%s is shown as %s', (url, label) => {
    expect(alertUrlLabel(url)).toBe(label);
  });

  it('IVS_ALERTS_URL (several) wins over the file; { env } names a variable; an unset one is none', () => {
    const env = { HOOK: 'https://hooks.example.com/a/secret' };
    expect(
      alertUrlsOf('https://a.example/x https://b.example/y', 'https://c.example/z', env, 'f.yaml').map((s) =>
        s.reveal(),
      ),
    ).toEqual(['https://a.example/x', 'https://b.example/y']);
    expect(
      alertUrlsOf(undefined, [{ env: 'HOOK' }, 'https://c.example/z', { env: 'UNSET' }], env, 'f.yaml').map((s) =>
        s.reveal(),
      ),
    ).toEqual(['https://hooks.example.com/a/secret', 'https://c.example/z']);
    expect(alertUrlsOf(undefined, undefined, env, 'f.yaml')).toEqual([]);
  });

  it('a bad URL is refused with its source, never shown whole', () => {
    expect(() =>
      alertUrlsOf(undefined, ['https://ok.example/', 'ftp://files.example/secret-path'], {}, 'f.yaml'),
    ).toThrow(/alerts\.url\.1: must be an http:\/\/ or https:\/\/ URL, got a ftp: one/);
    let caught: unknown;
    try {
      alertUrlsOf('ftp://files.example/secret-path', undefined, {}, '');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Error);
    expect(
      JSON.stringify({ message: (caught as Error).message, value: (caught as { value: unknown }).value }),
    ).not.toContain('secret-path');
  });
});
