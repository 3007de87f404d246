/**
 * The receiver under slow clients: `attackers` connections (opened from a
 * worker thread) send their headers and then their body one byte a second;
 * meanwhile signed deliveries arrive one after the other, each on a new
 * connection as the service opens them. Run once with the receiver's default
 * limits and once with limits too high to matter (how it behaved before), it
 * prints how many slow connections the server still holds, how the
 * deliveries fared, and the process RSS (attackers included; give one set of
 * limits per run with --only for a memory figure of its own).
 *
 *   npm run build && node dist/bench/slow-clients-bench.js \
 *     [--attackers 3000] [--deliveries 200] [--only before|defaults]
 */
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Secret } from '../src/config/secret.js';
import { openSink } from '../src/store/open-sink.js';
import type { ConnectionLimits } from '../src/webhooks/connection-guard.js';
import { createWebhookReceiver } from '../src/webhooks/webhook-receiver.js';
import { startWebhookServer } from '../src/http/webhook-server.js';
import { markdownTable } from './markdown-table.js';
import { isEntryPoint, numberFlag } from './script-args.js';
import { DEFAULTS } from '../src/config/defaults.js';

const SECRET = new Secret('bench-slow-clients-secret-of-32ch');

interface AttackerReport {
  opened: number;
  open: number;
  answered: Record<string, number>;
}

export interface SlowClientsFigure {
  label: string;
  attackers: number;
  stillOpen: number;
  answered: Record<string, number>;
  deliveries: number;
  delivered: number;
  p50Ms: number;
  p99Ms: number;
  rssMb: number;
}

/** Worker side: opens the slow connections, trickles a byte a second into each, reports when asked. */
function attack(port: number, attackers: number): void {
  const sockets = new Set<Socket>();
  const answered: Record<string, number> = {};
  let opened = 0;
  const openOne = (): Promise<void> =>
    new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        opened++;
        sockets.add(socket);
        socket.write(
          'POST /webhooks HTTP/1.1\r\nHost: receiver\r\nContent-Type: application/json\r\nContent-Length: ' +
            '100000\r\nService-Signature: SHA256:AAAA\r\n\r\n{',
        );
        resolve();
      });
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      socket.on('error', () => resolve());
      socket.on('close', () => {
        sockets.delete(socket);
        const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 'closed';
        answered[status] = (answered[status] ?? 0) + 1;
      });
    });
  const trickle = setInterval(() => {
    for (const socket of sockets) if (socket.writable) socket.write(' ');
  }, 1_000);
  parentPort!.on('message', async (message: string) => {
    if (message === 'open') {
      for (let i = 0; i < attackers; i += 100)
        await Promise.all(Array.from({ length: Math.min(100, attackers - i) }, openOne));
      parentPort!.postMessage('opened');
    } else if (message === 'report') {
      parentPort!.postMessage({ opened, open: sockets.size, answered } satisfies AttackerReport);
    } else {
      clearInterval(trickle);
      for (const socket of sockets) socket.destroy();
      parentPort!.close();
    }
  });
}

function deliver(url: URL, i: number): Promise<{ status: number; ms: number }> {
  const item =
    `{"service_id": "slow-bench-${i}", "activity": {"name": "authentication"}, "timestamp": {"created_at": ` +
    `"2026-01-01T00:00:00Z"}}`;
  const body = `{"channel": "default", "webhook_uuid": "wh-bench", "item_count": 1, "items": [${item}]}`;
  const signature = `SHA256:${createHmac('sha256', SECRET.reveal()).update(body).digest('base64')}`;
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/webhooks',
        method: 'POST',
        agent: false,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'Service-Signature': signature,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
      },
    );
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end(body);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function ask<T>(worker: Worker, message: string, isAnswer: (m: unknown) => m is T): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: unknown): void => {
      if (!isAnswer(m)) return;
      worker.off('message', on);
      resolve(m);
    };
    worker.on('message', on);
    worker.postMessage(message);
  });
}

export async function runSlowClientsBench(
  label: string,
  limits: ConnectionLimits,
  attackers: number,
  deliveries: number,
): Promise<SlowClientsFigure> {
  const dir = await mkdtemp(join(tmpdir(), 'ivsync-slow-bench-'));
  const sink = await openSink(`sqlite:${join(dir, 'target.sqlite')}`);
  const receiver = createWebhookReceiver({
    sink,
    secrets: { byUuid: {}, defaultSecret: SECRET },
    path: '/webhooks',
    maxBodyBytes: DEFAULTS.webhooks.maxBodyBytes,
  });
  const server = await startWebhookServer({ receiver, port: 0, host: '127.0.0.1', limits });
  const worker = new Worker(new URL(import.meta.url), { workerData: { port: server.port, attackers } });
  try {
    await ask(worker, 'open', (m): m is 'opened' => m === 'opened');
    const url = new URL(server.url);
    const times: number[] = [];
    let delivered = 0;
    for (let i = 0; i < deliveries; i++) {
      const { status, ms } = await deliver(url, i);
      times.push(ms);
      if (status === 200) delivered++;
    }
    const report = await ask(
      worker,
      'report',
      (m): m is AttackerReport => typeof m === 'object' && m !== null && 'opened' in m,
    );
    times.sort((a, b) => a - b);
    return {
      label,
      attackers: report.opened,
      stillOpen: report.open,
      answered: report.answered,
      deliveries,
      delivered,
      p50Ms: percentile(times, 50),
      p99Ms: percentile(times, 99),
      rssMb: process.memoryUsage().rss / 1_048_576,
    };
  } finally {
    worker.postMessage('stop');
    await server.close();
    await sink.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function slowClientsTable(figures: readonly SlowClientsFigure[]): string {
  return markdownTable(
    [
      'limits',
      'slow connections',
      'still open',
      'closed by the server',
      'deliveries 200',
      'delivery p50 / p99 ms',
      'RSS MB',
    ],
    figures.map((f) => [
      f.label,
      f.attackers,
      f.stillOpen,
      Object.entries(f.answered)
        .map(([status, n]) => `${n}× ${status}`)
        .join(', ') || '-',
      `${f.delivered} of ${f.deliveries}`,
      `${f.p50Ms.toFixed(1)} / ${f.p99Ms.toFixed(1)}`,
      f.rssMb.toFixed(0),
    ]),
  );
}

if (!isMainThread && (workerData as { attackers?: number } | undefined)?.attackers !== undefined) {
  const { port, attackers } = workerData as { port: number; attackers: number };
  attack(port, attackers);
} else if (isEntryPoint(import.meta.url)) {
  const args = process.argv.slice(2);
  const attackers = numberFlag(args, '--attackers') ?? 3_000;
  const deliveries = numberFlag(args, '--deliveries') ?? 200;
  const only = args[args.indexOf('--only') + 1];
  const runs: Array<[string, string, ConnectionLimits]> = [
    // What the receiver's servers had before: Node's own time-outs and no cap.
    [
      'before',
      "before: Node's (300 s, no cap)",
      { requestTimeoutMs: 300_000, headersTimeoutMs: 60_000, maxConnections: 1_000_000 },
    ],
    ['defaults', 'defaults (30 s, 256)', {}],
  ];
  const figures: SlowClientsFigure[] = [];
  for (const [name, label, limits] of runs) {
    if (!args.includes('--only') || only === name)
      figures.push(await runSlowClientsBench(label, limits, attackers, deliveries));
  }
  console.log(slowClientsTable(figures));
}
