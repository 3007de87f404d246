import { expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { Secret } from '../../src/config/secret.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { openSink } from '../../src/store/open-sink.js';
import { readRow } from '../../src/store/row-reader.js';
import { table } from '../../src/schema/schema.js';
import { createWebhookReceiver } from '../../src/webhooks/webhook-receiver.js';
import { startWebhookServer } from '../../src/http/webhook-server.js';
import { clientOptions } from '../helpers/client-options.js';
import { cliError, runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START } from '../helpers/truth.js';
import { eachTarget } from './each-target.js';
import { readTarget } from './read-target.js';

/*
 * History mode against SQLite, DuckDB and PostgreSQL: the versions a session's
 * changes leave in session_history, whichever way they arrive (a sync, a
 * webhook, verify --repair), and none when nothing changed.
 */

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 100, rate: 2000, burst: 2000, seed: 43, nonFinalShare: 0.05 });
const SECRET = new Secret('history-secret-of-32-characters!!');
// The view has the columns of the table that stores it.
const HISTORY = table('session_versions');

async function versions(url: string, serviceId: string): Promise<Record<string, unknown>[]> {
  const rows = await readTarget(url, 'SELECT * FROM session_history WHERE service_id = ? ORDER BY valid_from', [
    serviceId,
  ]);
  return rows.map((r) => readRow(HISTORY, r));
}

const historyRows = async (url: string): Promise<number> =>
  Number((await readTarget(url, 'SELECT COUNT(*) AS n FROM session_history'))[0]!.n);

/** Each version ends where the next begins; only the last is current. */
function expectChained(rows: readonly Record<string, unknown>[]): void {
  rows.forEach((r, i) => expect(r.valid_to).toBe(i + 1 < rows.length ? rows[i + 1]!.valid_from : null));
}

/**
 * A receiver over real HTTP writing into the target, with a webhook at the
 * simulator that delivers to it, while `work` runs; closed after (a DuckDB
 * file has one process at a time, and the CLI runs next).
 */
async function withReceiver(sim: RunningSimulator, url: string, work: () => Promise<void>): Promise<void> {
  const sink = await openSink(url);
  const receiver = createWebhookReceiver({
    sink,
    secrets: { byUuid: {}, defaultSecret: SECRET },
    path: '/webhooks',
    maxBodyBytes: 1_048_576,
    accounts: [{ name: 'default' }],
  });
  const server = await startWebhookServer({ receiver, port: 0, host: '127.0.0.1', domainVerifications: {} });
  const client = createClient(clientOptions(sim.url, { token: new Secret('test-token') }));
  try {
    await client.webhooks.create({
      endpoint: `${server.url}/webhooks`,
      secretKey: SECRET,
      filters: [{ key: 'activity.name', values: ['authentication'] }],
    });
    await work();
    await sim.deliveries.settled();
    await receiver.idle();
  } finally {
    // Later changes are not delivered: nothing listens any more.
    sim.deliveries.pause();
    client.close();
    await server.close();
    await sink.close();
  }
}

eachTarget((_dialect, target) => {
  it('sync, webhooks and verify --repair leave exactly the versions the service had; idle runs add none', async () => {
    const sim = await simulator();
    const { url } = target();
    const config = writeConfig(tempDir(), {
      crawl: { windowSeconds: 61 * 86_400, concurrency: 6, overlapSeconds: 86_400, resources: ['authentications'] },
    });
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_DB: url,
      IVS_CONFIG: config,
      IVS_RATE: '2000',
    };
    const run = async (args: string[], code = 0) => {
      const result = await runIvsync(args, env);
      expect(cliError(result.stderr)).toBeUndefined();
      expect(result.code, result.stderr.slice(-600)).toBe(code);
    };
    await run(['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END)]);
    await run(['sync']);
    const stored = Number((await readTarget(url, 'SELECT COUNT(*) AS n FROM authentications'))[0]!.n);
    // A backfilled session's first version starts at its creation.
    expect(await historyRows(url)).toBe(stored);
    const [elsewhere] = await readTarget(
      url,
      `SELECT COUNT(*) AS n FROM authentications s JOIN session_history h ON h.service_id = s.service_id
       WHERE h.valid_from <> s.created_at`,
    );
    expect(Number(elsewhere!.n)).toBe(0);

    // Non-final, then flagged: seen by sync.
    const session = sim.world.addSession({ final: false }).serviceId;
    await run(['sync']);
    sim.world.setFlag(session, 'review');
    await run(['sync']);

    // Final: seen by a webhook. And another session changed five times, its deliveries shuffled.
    const shuffled = sim.world
      .serviceIds('alice', 'authentications')
      .find((id) => id !== session && sim.world.get(id)?.bad === null)!;
    const states = new Map<number, { result: string; final: boolean; flag: string | null }>();
    await withReceiver(sim, url, async () => {
      sim.world.finalize(session);
      sim.deliveries.pause();
      for (let n = 0; n < 5; n++) {
        const r =
          n % 2 === 0
            ? sim.world.setFlag(shuffled, `flag-${n}`)
            : sim.world.setResult(shuffled, n === 3 ? 'authentic' : 'unidentified', n === 3);
        states.set(r.updateCounter, { result: r.resultId, final: r.final, flag: r.flag });
      }
      sim.deliveries.resume('shuffle');
    });

    const rows = await versions(url, session);
    expect(rows.map((r) => [r.result_final, r.flag, r.source === 'webhook', r.update_counter])).toEqual([
      [false, null, false, null],
      [false, 'review', false, null],
      [true, 'review', true, sim.world.get(session)!.updateCounter],
    ]);
    expect(rows[0]!.valid_from).toBe(
      readRow(HISTORY, {
        valid_from: (
          await readTarget(url, 'SELECT created_at FROM authentications WHERE service_id = ?', [session])
        )[0]!.created_at,
      }).valid_from,
    );
    expectChained(rows);

    // Deliveries out of order: the versions keep update_counter order, and each is one the service had.
    const delivered = (await versions(url, shuffled)).slice(1);
    expect(delivered.length).toBeGreaterThan(0);
    const counters = delivered.map((r) => Number(r.update_counter));
    expect(counters).toEqual([...counters].sort((a, b) => a - b));
    expect(new Set(counters).size).toBe(counters.length);
    expect(counters.at(-1)).toBe(sim.world.get(shuffled)!.updateCounter);
    for (const r of delivered)
      expect({ result: r.result_id, final: r.result_final, flag: r.flag }).toEqual(
        states.get(Number(r.update_counter)),
      );
    expectChained(await versions(url, shuffled));

    // A change in a sealed window: found and repaired by verify.
    const [sealed] = await readTarget(
      url,
      `SELECT s.service_id FROM authentications s JOIN sync_windows w
         ON w.resource = 'authentications' AND w.status = 'sealed'
        AND s.created_epoch >= w.window_start AND s.created_epoch < w.window_end
       WHERE s.result_final AND s.flag IS NULL AND s.service_id <> ? ORDER BY s.created_epoch LIMIT 1`,
      [shuffled],
    );
    const repaired = String(sealed!.service_id);
    sim.world.setFlag(repaired, 'flagged_later');
    await run(['verify', '--repair'], 4);
    expect((await versions(url, repaired)).map((r) => [r.flag, r.source])).toEqual([
      [null, 'search'],
      ['flagged_later', 'verify'],
    ]);

    // Nothing changes: nothing is written.
    const before = await historyRows(url);
    await run(['sync']);
    await run(['sync']);
    await run(['verify']);
    expect(await historyRows(url)).toBe(before);
  });
});
