/**
 * Checks that the token bucket delivers its budget: with a permanent backlog,
 * a RateLimiter at 10 rps should start 10 requests per second (within 2%) and
 * never more than 10 in any rolling second. Measured twice: the bucket alone,
 * and end to end (client -> local HTTP server), counting arrivals at the server,
 * where arrival jitter of a millisecond can show one extra in a rolling second.
 *
 *   npx tsc --outDir /tmp/ivbench --rootDir . --module nodenext --moduleResolution nodenext \
 *     --target es2022 --skipLibCheck --types node bench/rate-limiter-check.ts
 *   node /tmp/ivbench/bench/rate-limiter-check.js [seconds=10] [rate=10]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '../src/api/client.js';
import { RateLimiter } from '../src/api/rate-limiter.js';
import { benchClientOptions } from './bench-client.js';

const seconds = Number(process.argv[2] ?? 10);
const rate = Number(process.argv[3] ?? 10);

interface Figures {
  starts: number;
  spanMs: number;
  achievedRps: number;
  deviationPct: number;
  maxInRollingSecond: number;
}

/** Long-run rate (starts after the first, over the time they took) and the busiest rolling second. */
function figures(times: number[]): Figures {
  const sorted = [...times].sort((a, b) => a - b);
  const first = sorted[0] ?? 0;
  const last = sorted[sorted.length - 1] ?? 0;
  let maxInRollingSecond = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi += 1) {
    while ((sorted[hi] ?? 0) - (sorted[lo] ?? 0) >= 1000) lo += 1;
    maxInRollingSecond = Math.max(maxInRollingSecond, hi - lo + 1);
  }
  const achievedRps = ((sorted.length - 1) * 1000) / (last - first);
  return {
    starts: sorted.length,
    spanMs: last - first,
    achievedRps,
    deviationPct: ((achievedRps - rate) / rate) * 100,
    maxInRollingSecond,
  };
}

async function bucketAlone(): Promise<Figures> {
  const limiter = new RateLimiter({ rate });
  const times: number[] = [];
  // All queued at once: the bucket is saturated from the first start to the last.
  const total = Math.ceil(rate * seconds) + 1;
  await Promise.all(Array.from({ length: total }, () => limiter.schedule(async () => void times.push(Date.now()))));
  return figures(times);
}

async function endToEnd(): Promise<Figures> {
  const arrivals: number[] = [];
  const server = createServer((req, res) => {
    arrivals.push(Date.now());
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"item_count":0,"items":[],"next_cursor":null}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = createClient(benchClientOptions(`http://127.0.0.1:${port}`, 'bench-token', rate));
  const total = Math.ceil(rate * seconds) + 1;
  await Promise.all(Array.from({ length: total }, () => client.searchPage('authentications', {})));
  client.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return figures(arrivals);
}

const show = (name: string, f: Figures) =>
  console.log(
    `${name.padEnd(22)} ${f.starts} starts over ${f.spanMs} ms  achieved: ${f.achievedRps.toFixed(2)} rps ` +
      `(${f.deviationPct >= 0 ? '+' : ''}${f.deviationPct.toFixed(1)}%, ` +
      `${Math.abs(f.deviationPct) <= 2 ? 'within' : 'OUTSIDE'} 2%)  ` +
      `max in any rolling second: ${f.maxInRollingSecond}`,
  );

show('bucket starts', await bucketAlone());
show('arrivals at the server', await endToEnd());
