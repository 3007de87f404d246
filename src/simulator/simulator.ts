import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { languageOf } from './catalog.js';
import { decideFault, type FaultDecision, type FaultSpec } from './fault-spec.js';
import { managementRoutes } from './management-routes.js';
import { createRandom, type Random } from './prng.js';
import { errorReply, type Reply, type Route, type VersionRule } from './route.js';
import { withDeepNesting } from './poison.js';
import { ServedPages, type ServedPage } from './served-pages.js';
import { sessionRoutes } from './session-routes.js';
import {
  normalizeLatency,
  resolveFaults,
  resolveSimulatorOptions,
  type SimulatorOptions,
} from './simulator-options.js';
import { countOwnerRequest, countResponse, newStats, recordSearch, type SimulatorStats } from './simulator-stats.js';
import { TokenBucket } from './token-bucket.js';
import { v2CatalogRoutes } from './v2-catalog-routes.js';
import { WebhookDeliveries } from './webhook-deliveries.js';
import type { SessionRecord } from './session-record.js';
import { World } from './world.js';

export interface RunningSimulator {
  /** e.g. http://127.0.0.1:40123 */
  readonly url: string;
  /** The data, and the mutations tests use to change it. */
  readonly world: World;
  readonly stats: SimulatorStats;
  /** Webhook deliveries: `settled()`, `pause()` / `resume(order)` for out-of-order arrival. */
  readonly deliveries: WebhookDeliveries;
  /** Search pages answered 200 in full, in order; empty unless `recordServedPages` is set. */
  readonly servedPages: readonly ServedPage[];
  setFaults(spec: FaultSpec | string): void;
  setLatency(ms: number | [number, number]): void;
  /** Stops the server, drops pending webhook deliveries and answers nothing more. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1 << 20;

/** What the server does with one request. */
type ReplyOutcome = { kind: 'reply'; route: string; reply: Reply; fault: FaultDecision; retryAfter?: number };
type Outcome = ReplyOutcome | { kind: 'reset'; route: string };

function versionAccepted(rule: VersionRule, header: string | undefined, v2Version: string): boolean {
  if (header === undefined) return false;
  const value = header.trim();
  if (rule === 'v1') return value === '1.4';
  if (rule === 'v2') return value === v2Version;
  const match = /^1\.(\d+)$/.exec(value);
  return match !== null && Number(match[1]) >= 3;
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(null));
  });
}

/**
 * Starts the simulated Item Verification Service on a real HTTP server:
 * v1.4 and v2 routes over one seeded world, with the rate limit, latency,
 * faults and webhook deliveries of the real service.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const resolved = resolveSimulatorOptions(options);
  const root = createRandom(resolved.seed ^ 0x5eed);
  const faultRandom: Random = root.fork();
  const latencyRandom: Random = root.fork();
  const catalogRandom: Random = root.fork();
  const deliveryRandom: Random = root.fork();
  const clock = resolved.clock;

  const world = new World({
    seed: resolved.seed,
    sessions: resolved.sessions,
    otherOwnerSessions: resolved.otherOwnerSessions,
    fromSec: resolved.from,
    toSec: resolved.to,
    tokens: resolved.tokens,
    otherOwner: resolved.otherOwner,
    integerEpochShare: resolved.integerEpochShare,
    nonFinalShare: resolved.nonFinalShare,
    poisonShare: resolved.poisonShare,
    rangeSemantics: resolved.rangeSemantics,
    clock,
  });
  world.cursorStyle = resolved.cursorStyle;
  const deliveries = new WebhookDeliveries({
    retryBaseMs: resolved.webhookRetryBaseMs,
    maxAttempts: resolved.webhookMaxAttempts,
    timeoutMs: resolved.webhookTimeoutMs,
    jitterMs: resolved.deliveryJitterMs,
    random: deliveryRandom,
  });
  const stats = newStats(deliveries.stats);
  let faults = resolved.faults;
  let latency = normalizeLatency(resolved.latencyMs);

  world.onChange((session: SessionRecord) => {
    for (const webhook of world.webhooks.matching(session)) {
      const { item } = world.render(session, {
        viewer: null,
        apiVersion: webhook.apiVersion,
        language: webhook.language,
        webhook: true,
      });
      const delivery = { channel: webhook.channel, webhook_uuid: webhook.uuid, item_count: 1, items: [item] };
      const body = withDeepNesting(JSON.stringify(delivery));
      deliveries.enqueue({ webhookUuid: webhook.uuid, url: webhook.endpoint, secret: webhook.secret, body });
    }
  });

  const routes: Route[] = [
    ...sessionRoutes(world),
    ...managementRoutes(world, resolved.allowHttpWebhookEndpoints),
    ...v2CatalogRoutes(catalogRandom, resolved.catalogUnavailableShare, resolved.seed),
  ];
  const buckets = new Map<string, TokenBucket>();
  const bucketOf = (token: string): TokenBucket => {
    let bucket = buckets.get(token);
    if (bucket === undefined) buckets.set(token, (bucket = new TokenBucket(resolved.rate, resolved.burst, clock)));
    return bucket;
  };

  const decide = (req: IncomingMessage, bodyText: string | null): Outcome => {
    const url = new URL(req.url ?? '/', 'http://simulator');
    let params: string[] = [];
    let found: Route | undefined;
    let pathMatched = false;
    for (const candidate of routes) {
      const match = candidate.pattern.exec(url.pathname);
      if (match === null) continue;
      pathMatched = true;
      if (candidate.method !== req.method) continue;
      found = candidate;
      params = match.slice(1).map((p) => decodeURIComponent(p));
      break;
    }
    const none: FaultDecision = { kind: 'none' };
    if (found === undefined) {
      const reply = pathMatched
        ? errorReply(405, 'method_not_allowed', 'method not allowed')
        : errorReply(404, 'not_found', 'no such route');
      return { kind: 'reply', route: 'unmatched', reply, fault: none };
    }
    const name = found.name;
    const reply = (r: Reply): ReplyOutcome => ({ kind: 'reply', route: name, reply: r, fault: none });

    if (!versionAccepted(found.version, req.headers['api-version'] as string | undefined, resolved.v2ApiVersion)) {
      return reply(errorReply(400, 'invalid_headers', 'missing or unsupported Api-Version header'));
    }
    const authorization = /^Token\s+(\S+)\s*$/.exec(req.headers.authorization ?? '');
    const token = authorization?.[1];
    const owner = token === undefined ? undefined : world.ownerOfToken(token);
    if (token === undefined || owner === undefined)
      return reply(errorReply(401, 'unauthorized', 'the token is missing or invalid'));
    if (!bucketOf(token).take()) {
      stats.count429 += 1;
      return { ...reply(errorReply(429, 'rate_limited', 'too many requests')), retryAfter: resolved.retryAfterSeconds };
    }
    countOwnerRequest(stats, owner, clock());

    const fault = decideFault(faults, faultRandom);
    if (fault.kind !== 'none') stats.faultsInjected[fault.kind] += 1;
    if (fault.kind === 'reset') return { kind: 'reset', route: name };
    if (fault.kind === '500') return reply(errorReply(500, 'internal_error', 'internal server error'));
    if (fault.kind === '429')
      return { ...reply(errorReply(429, 'rate_limited', 'too many requests')), retryAfter: resolved.retryAfterSeconds };

    let body: unknown;
    if (found.jsonBody && bodyText !== null && bodyText.trim() !== '') {
      try {
        body = JSON.parse(bodyText);
      } catch {
        return reply(errorReply(400, 'invalid_request', 'the request body is not valid JSON'));
      }
    } else if (found.jsonBody && bodyText === null) {
      return reply(errorReply(400, 'invalid_request', 'the request body is too large'));
    }
    if (name.includes('/search/')) recordSearch(stats, name, body);
    let handled: Reply;
    try {
      handled = found.handle({
        owner,
        params,
        query: url.searchParams,
        body,
        language: languageOf(req.headers['accept-language']),
        nowMs: clock(),
      });
    } catch {
      handled = errorReply(500, 'internal_error', 'internal server error');
    }
    return { kind: 'reply', route: name, reply: handled, fault };
  };

  const waits = new Set<() => void>();
  let closed = false;
  const wait = (ms: number): Promise<void> => {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        waits.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waits.add(done);
    });
  };

  const served = new ServedPages();
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    stats.requests += 1;
    const requestNumber = stats.requests;
    const at = clock();
    stats.firstRequestAt ??= at;
    stats.lastRequestAt = at;
    const bodyText = await readBody(req);
    const outcome = decide(req, bodyText);
    const [min, max] = latency;
    const delay = min === max ? min : min + latencyRandom.next() * (max - min);
    const slow = outcome.kind === 'reply' && outcome.fault.kind === 'slow' ? outcome.fault.ms : 0;
    await wait(delay + slow);
    if (closed) {
      res.destroy();
      return;
    }
    if (outcome.kind === 'reset') {
      countResponse(stats, outcome.route, 'reset');
      req.socket.destroy();
      return;
    }
    const { reply } = outcome;
    countResponse(stats, outcome.route, String(reply.status));
    const text = withDeepNesting(JSON.stringify(reply.body));
    const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8' };
    if (outcome.retryAfter !== undefined) headers['Retry-After'] = String(outcome.retryAfter);
    if (outcome.fault.kind === 'truncate') {
      // No Content-Length: the body simply ends early, as when a proxy cuts the stream.
      res.writeHead(200, headers);
      res.end(text.slice(0, Math.floor(text.length / 2)));
      return;
    }
    headers['Content-Length'] = String(Buffer.byteLength(text));
    res.writeHead(reply.status, headers);
    res.end(text);
    if (resolved.recordServedPages && reply.status === 200 && outcome.route.includes('/search/'))
      served.record(outcome.route, requestNumber, bodyText, reply.body);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(resolved.port, resolved.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  world.baseUrl = url;

  return {
    url,
    world,
    stats,
    deliveries,
    servedPages: served.pages,
    setFaults(spec) {
      faults = resolveFaults(spec);
    },
    setLatency(ms) {
      latency = normalizeLatency(ms);
    },
    async close() {
      if (closed) return;
      closed = true;
      deliveries.close();
      for (const done of [...waits]) done();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
