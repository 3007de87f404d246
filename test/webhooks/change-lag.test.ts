import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { Secret } from '../../src/config/secret.js';
import { isoFromMicros, toIsoMicros } from '../../src/normalize/time.js';
import { clientOptions } from '../helpers/client-options.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { createWebhook, startHarness, startSim, TOKEN } from './harness.js';

const tempDir = useTempDir();
let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

/**
 * A change made at the service, its delivery held back, then let through
 * 45 s later on the one clock of the service and the receiver: the observed
 * lag is the delivery's wait, or for a v1.4 item (which says no time) none.
 */
async function deliveredChange(apiVersion: '1.4' | '2') {
  let t = Date.UTC(2026, 10, 2, 12);
  const clock = () => t;
  const sim = await startSim({ clock });
  closers.push(() => sim.close());
  const h = await startHarness(tempDir(), { clock });
  closers.push(() => h.close());
  const client = createClient(clientOptions(sim.url, { token: new Secret(TOKEN), apiVersion }));
  closers.push(async () => client.close());
  await createWebhook(client, h.url);
  const settle = async () => {
    await sim.deliveries.settled();
    await h.receiver.idle();
  };
  const id = sim.world.serviceIds().find((s) => sim.world.get(s)?.bad === null)!;
  // The first delivery stores the session: new to the target, no change to it.
  sim.world.setFlag(id, 'first');
  await settle();
  t += 60_000;
  sim.deliveries.pause();
  const changed = sim.world.setFlag(id, 'second');
  t += 45_000;
  sim.deliveries.resume();
  await settle();
  const rows = await h.sink.query('SELECT service_id, changed_at, stored_at, lag_seconds, source FROM change_lags');
  const lags = rows.map((r) => ({ ...r, lag_seconds: Number(r.lag_seconds) }));
  return { rows: lags, id, changedMicros: changed.updatedMicros!, arrival: t };
}

describe('observed lag of webhook deliveries', () => {
  it("v2: the service's change time, to the delivery's arrival", async () => {
    const { rows, id, changedMicros, arrival } = await deliveredChange('2');
    const stored = toIsoMicros(arrival / 1000);
    const changedAt = isoFromMicros(changedMicros);
    expect(rows).toEqual([
      { service_id: id, changed_at: changedAt, stored_at: stored, lag_seconds: 45, source: 'webhook' },
    ]);
  });

  it('v1.4: the delivery arrived when the change was made', async () => {
    const { rows, id, arrival } = await deliveredChange('1.4');
    const stored = toIsoMicros(arrival / 1000);
    expect(rows).toEqual([
      { service_id: id, changed_at: stored, stored_at: stored, lag_seconds: 0, source: 'webhook' },
    ]);
  });
});
