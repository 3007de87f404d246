import { describe, expect, it } from 'vitest';
import { leaseLiveness } from '../../src/daemon/lease-liveness.js';
import type { LeaseState } from '../../src/store/sink.js';

const NOW = Date.parse('2026-11-26T10:00:00Z') / 1000;
const ago = (s: number) => new Date((NOW - s) * 1000).toISOString();
const lease = (name: string, holder: string, age: number): LeaseState => ({
  name,
  holder,
  acquiredAt: ago(age + 100),
  heartbeatAt: ago(age),
  held: false,
});
const liveDaemon = lease('daemon:h:1:d', 'h:1:d', 5);
const silentDaemon = lease('daemon:h:1:d', 'h:1:d', 600);
const deadDaemon = lease('daemon:h:2:dead', 'h:2:dead', 1);
const tick = (holder: string, age: number) => lease('tick:default', holder, age);
const dead = new Set(['h:2:dead']);
const holderIsDead = (holder: string) => dead.has(holder);

describe('leaseLiveness', () => {
  it.each([
    ['a daemon with a fresh heartbeat', [lease('daemon:h:1:d', 'h:1:d', 5)], [false]],
    ['a daemon silent past the ttl', [lease('daemon:h:1:d', 'h:1:d', 61)], [true]],
    ['a daemon whose process is gone from this host', [lease('daemon:h:2:dead', 'h:2:dead', 1)], [true]],
    ['an account lease with a fresh heartbeat', [lease('account:default', 'h:1:r', 10)], [false]],
    ['an account lease of a dead run', [lease('account:default', 'h:2:dead', 1)], [true]],
    ['a tick claim of a live daemon, however old its tick', [liveDaemon, tick('h:1:d', 3600)], [false, false]],
    ['a tick claim of a daemon gone silent', [silentDaemon, tick('h:1:d', 1)], [true, true]],
    ['a tick claim whose daemon lease is gone', [tick('h:1:d', 1)], [true]],
    ['a tick claim of a dead daemon', [deadDaemon, tick('h:2:dead', 1)], [true, true]],
  ] as const)('%s', (_name, leases, stale) => {
    expect(leaseLiveness(leases, NOW, 60, holderIsDead).map((l) => l.stale)).toEqual(stale);
  });
});
