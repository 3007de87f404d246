/**
 * The webhook receiver's figures:
 *
 * 1. deliveries per second verified and committed into SQLite: signed
 *    single-item deliveries sent by a concurrent local client (a worker
 *    thread, keep-alive connections) to the real HTTP receiver;
 * 2. the time from a simulator mutation to the row being committed in the
 *    target (p50, p99, max), deliveries going through the simulator's own
 *    delivery path.
 *
 *   npm run build && node dist/bench/webhook-bench.js [deliveries, default 20000] [concurrency, default 32]
 */
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createClient } from '../src/api/client.js';
import { Secret } from '../src/config/secret.js';
import { startSimulator } from '../src/simulator/index.js';
import { openSink } from '../src/store/open-sink.js';
import { createWebhookReceiver } from '../src/webhooks/webhook-receiver.js';
import { startWebhookServer } from '../src/http/webhook-server.js';
import { markdownTable } from './markdown-table.js';
import { benchClientOptions } from './bench-client.js';
import { DEFAULTS } from '../src/config/defaults.js';

const SECRET = new Secret('bench-webhook-secret-of-32-chars');

export interface WebhookBenchResult {
  deliveries: number;
  concurrency: number;
  seconds: number;
  deliveriesPerSecond: number;
  requestP50Ms: number;
  requestP99Ms: number;
  committed: number;
  mutations: number;
  visibleP50Ms: number;
  visibleP99Ms: number;
  visibleMaxMs: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

function itemBody(i: number): string {
  const id = `bench-${i.toString(16).padStart(8, '0')}`;
  const epoch = 1_780_000_000 + i / 7;
  const item = {
    service_id: id,
    activity: { name: 'authentication', form_factor: 'microscopic', product_category: 'luxury', product_group: 'bags' },
    certificate: { preview: `https://cert.example.com/p/${id}`, site: `https://cert.example.com/${id}` },
    owner: { organization: { name: 'Alice Resale' }, user: { username: 'alice' } },
    properties: { brand: { id: 'acme', display: 'Acme' }, material: { id: 'leather', display: 'Leather' } },
    status: { flag: null, result: { id: 'authentic', display: 'Authentic', final: true } },
    text_fields: { customer_item_id: `order-${i}`, identifier: `ID${i}`, style_code: 'S-1', us_size: '9' },
    timestamp: { display: new Date(epoch * 1000).toISOString().replace('Z', '000Z'), epoch },
    update_counter: 1,
  };
  return JSON.stringify({ channel: 'default', webhook_uuid: 'bench-webhook', item_count: 1, items: [item] });
}

// The client runs in its own thread so that it does not share the receiver's event loop.
const CLIENT =
  `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { performance } = require('node:perf_hooks');
const { url, bodies, signatures, concurrency } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const target = new URL(url);
const latencies = new Float64Array(bodies.length);
let next = 0, failed = 0;
function send(i) {
  return new Promise((resolve) => {
    const start = performance.now();
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent,
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(bodies[i]), ` +
  `'Service-Signature': signatures[i] } }, (res) => {
      res.resume();
      res.on('end', () => { if (res.statusCode !== 200) failed++; latencies[i] = performance.now() - start; ` +
  `resolve(); });
    });
    req.on('error', () => { failed++; resolve(); });
    req.end(bodies[i]);
  });
}
async function lane() { while (next < bodies.length) await send(next++); }
const start = performance.now();
Promise.all(Array.from({ length: concurrency }, lane)).then(() => {
  const ms = performance.now() - start;
  agent.destroy();
  parentPort.postMessage({ ms, failed, latencies: Array.from(latencies) });
});
`;

async function throughput(dir: string, deliveries: number, concurrency: number) {
  const sink = await openSink(`sqlite:${join(dir, 'throughput.sqlite')}`);
  const receiver = createWebhookReceiver({
    sink,
    secrets: { byUuid: {}, defaultSecret: SECRET },
    path: '/webhooks',
    maxBodyBytes: DEFAULTS.webhooks.maxBodyBytes,
  });
  const server = await startWebhookServer({ receiver, port: 0, host: '127.0.0.1' });
  const bodies = Array.from({ length: deliveries }, (_, i) => itemBody(i));
  const signatures = bodies.map((b) => `SHA256:${createHmac('sha256', SECRET.reveal()).update(b).digest('base64')}`);
  const result = await new Promise<{ ms: number; failed: number; latencies: number[] }>((resolve, reject) => {
    const worker = new Worker(CLIENT, {
      eval: true,
      workerData: { url: `${server.url}/webhooks`, bodies, signatures, concurrency },
    });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await server.close();
  const [row] = await sink.query('SELECT count(*) AS n FROM webhook_deliveries');
  await sink.close();
  if (result.failed > 0) throw new Error(`${result.failed} deliveries were not answered 200`);
  const sorted = result.latencies.sort((a, b) => a - b);
  return {
    seconds: result.ms / 1000,
    committed: Number(row?.n ?? 0),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

async function mutationToRow(dir: string, mutations: number) {
  const sim = await startSimulator({ sessions: Math.max(mutations, 100), rate: 100_000, burst: 100_000 });
  const sink = await openSink(`sqlite:${join(dir, 'latency.sqlite')}`);
  const mutatedAt = new Map<string, number>();
  const latencies: number[] = [];
  const receiver = createWebhookReceiver({
    sink,
    secrets: { byUuid: {}, defaultSecret: SECRET },
    path: '/webhooks',
    maxBodyBytes: DEFAULTS.webhooks.maxBodyBytes,
    // Called after the commit: from here on any reader of the target sees the row.
    onDelivery: (event) => {
      if (event.outcome !== 'accepted') return;
      for (const id of event.serviceIds) {
        const at = mutatedAt.get(id);
        if (at !== undefined) latencies.push(performance.now() - at);
      }
    },
  });
  const server = await startWebhookServer({ receiver, port: 0, host: '127.0.0.1' });
  const client = createClient(benchClientOptions(sim.url, 'test-token', 1000));
  await client.webhooks.create({
    endpoint: `${server.url}/webhooks`,
    secretKey: SECRET,
    filters: [{ key: 'activity.name', values: ['authentication', 'fingerprint'] }],
  });
  const ids = [
    ...sim.world.serviceIds('alice', 'authentications'),
    ...sim.world.serviceIds('alice', 'fingerprints'),
  ].slice(0, mutations);
  // About 200 changes a second, paced by the timer rather than all at once.
  for (const [i, id] of ids.entries()) {
    mutatedAt.set(id, performance.now());
    sim.world.setResult(id, i % 2 === 0 ? 'authentic' : 'unidentified', true);
    if (i % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await sim.deliveries.settled();
  await receiver.idle();
  client.close();
  await server.close();
  await sim.close();
  await sink.close();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    mutations: ids.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export async function runWebhookBench(
  deliveries = 20_000,
  concurrency = 32,
  mutations = 500,
): Promise<WebhookBenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'ivsync-webhook-bench-'));
  try {
    const t = await throughput(dir, deliveries, concurrency);
    const l = await mutationToRow(dir, mutations);
    return {
      deliveries,
      concurrency,
      seconds: t.seconds,
      deliveriesPerSecond: deliveries / t.seconds,
      requestP50Ms: t.p50,
      requestP99Ms: t.p99,
      committed: t.committed,
      mutations: l.mutations,
      visibleP50Ms: l.p50,
      visibleP99Ms: l.p99,
      visibleMaxMs: l.max,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function webhookTable(r: WebhookBenchResult): string {
  const rows: Array<[string, string, string]> = [
    ['deliveries verified + committed', `${r.committed} of ${r.deliveries} in ${r.seconds.toFixed(2)} s`, ''],
    ['deliveries/s (single item, SQLite)', r.deliveriesPerSecond.toFixed(0), '>= 2000'],
    [
      `request p50 / p99 at ${r.concurrency} in flight`,
      `${r.requestP50Ms.toFixed(1)} / ${r.requestP99Ms.toFixed(1)} ms`,
      '',
    ],
    [`mutation -> row committed, ${r.mutations} changes: p50`, `${r.visibleP50Ms.toFixed(1)} ms`, ''],
    ['mutation -> row committed: p99', `${r.visibleP99Ms.toFixed(1)} ms`, '<= 1000 ms'],
    ['mutation -> row committed: max', `${r.visibleMaxMs.toFixed(1)} ms`, ''],
  ];
  const header: [string, string, string] = ['measure', 'value', 'target'];
  return markdownTable(header, rows);
}

if (process.argv[1]?.endsWith('webhook-bench.js') === true) {
  const deliveries = Number(process.argv[2] ?? 20_000);
  const concurrency = Number(process.argv[3] ?? 32);
  console.log(webhookTable(await runWebhookBench(deliveries, concurrency)));
}
