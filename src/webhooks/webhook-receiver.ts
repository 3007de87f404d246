import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceClient } from '../api/service-client.js';
import { toIsoMicros } from '../normalize/time.js';
import type { DeliveryResult, Sink } from '../store/sink.js';
import type { ConnectionRefusal } from './connection-guard.js';
import { deliveryId, parseDeliveryBody } from './delivery-body.js';
import { normalizeDelivery } from './normalize-delivery.js';
import { readRawBody } from './read-raw-body.js';
import type { ReceiverLogger } from './receiver-logger.js';
import { refreshReason } from './refresh-decision.js';
import { SessionRefresher, type SessionRefresherOptions } from './session-refresher.js';
import { strictUtf8 } from './strict-utf8.js';
import { checkSignature, SIGNATURE_HEADER } from './verify-signature.js';
import { candidateSecrets, expectedSecret, type WebhookSecrets } from './webhook-secrets.js';

/** What the receiver writes through: the inbox and its items in one transaction, and the follow-up GETs. */
export type DeliverySink = Pick<Sink, 'applyDelivery' | 'mergeBatch' | 'markMissing'>;

/** Why a delivery was turned away, for logs and metrics (never the header or the body). */
export type RefusalReason =
  | 'not-found'
  | 'method-not-allowed'
  | 'too-large'
  | 'signature-missing'
  | 'signature-malformed'
  | 'signature-mismatch'
  | 'wrong-secret-for-webhook'
  | 'invalid-encoding'
  | 'invalid-body'
  | 'unknown-webhook'
  | 'shutting-down'
  | ConnectionRefusal;

/** One request the receiver answered; the daemon turns these into metrics. */
export type DeliveryEvent =
  | {
      outcome: 'accepted' | 'duplicate';
      status: 200;
      /** The account that owns the webhook; the rows were written under it. */
      account: string;
      webhookUuid: string | null;
      channel: string | null;
      items: number;
      /** Items newer than the stored rows. */
      applied: number;
      /** Items whose update_counter was not higher than the stored one. */
      stale: number;
      rejected: number;
      serviceIds: readonly string[];
    }
  | { outcome: 'refused'; status: number; reason: RefusalReason }
  | { outcome: 'failed'; status: 500; error: string };

/** An account deliveries may belong to; with its client, deliveries are followed up by GETs through its bucket. */
export interface ReceiverAccount {
  name: string;
  client?: Pick<ServiceClient, 'get' | 'apiVersion'> | undefined;
}

export interface WebhookReceiverDeps {
  sink: DeliverySink;
  secrets: WebhookSecrets;
  /** The accounts the receiver writes for; a delivery's rows record its account. @default one account 'default', no follow-up GETs */
  accounts?: readonly ReceiverAccount[];
  /**
   * The account that owns a delivery's webhook (see webhook-owners.ts);
   * undefined refuses the delivery (403, counted): no configured account owns it.
   * @default the only account owns every webhook
   */
  owner?: (webhookUuid: string | null) => Promise<string | undefined>;
  /** Path deliveries are POSTed to (config `webhooks.path`). */
  path: string;
  /** Larger bodies are answered 413 without being read to the end (config `webhooks.maxBodyBytes`). */
  maxBodyBytes: number;
  /** Milliseconds since the epoch. @default Date.now */
  clock?: () => number;
  logger?: ReceiverLogger;
  /** Called once per answered request. */
  onDelivery?: (event: DeliveryEvent) => void;
  /** Tuning of the follow-up GETs: a delivered session the target did not hold, or whose counter jumped, is fetched after the answer. */
  refresh?: Pick<SessionRefresherOptions, 'maxPending' | 'priority'>;
  /**
   * Runs after a delivery was verified and parsed, just before its commit.
   * Crash tests stall here to kill the process between receipt and answer.
   * @default none
   */
  beforeCommit?: () => Promise<void>;
}

/** A node request handler for deliveries, with what a graceful stop needs. */
export interface WebhookReceiver {
  (req: IncomingMessage, res: ServerResponse): void;
  readonly path: string;
  /** Requests being handled now. */
  readonly inFlight: number;
  /**
   * Refuses new deliveries (503: the service retries them) and resolves when
   * the ones in flight were committed and answered and the follow-up GET in
   * flight has finished.
   */
  drain(): Promise<void>;
  /** Resolves when no request is being handled and no follow-up GET waits or runs. */
  idle(): Promise<void>;
  /** Logs and reports a request the hosting server turned away (time-out, connection cap) as a refusal of this receiver. */
  refused(reason: ConnectionRefusal, remote: string | undefined): void;
}

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' };

function send(res: ServerResponse, status: number, body: Record<string, unknown>, extra: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, 'Content-Length': String(Buffer.byteLength(text)), ...extra });
  res.end(text);
}

const REFUSALS: Record<RefusalReason, { status: number; message: string }> = {
  'not-found': { status: 404, message: 'not found' },
  'method-not-allowed': { status: 405, message: 'deliveries are POSTed' },
  'too-large': { status: 413, message: 'the body is larger than the receiver accepts' },
  'signature-missing': { status: 401, message: 'the Service-Signature header is missing' },
  'signature-malformed': { status: 400, message: 'the Service-Signature header is not SHA256:<base64>' },
  'signature-mismatch': { status: 401, message: 'the signature does not match' },
  'wrong-secret-for-webhook': { status: 401, message: 'the signature does not match' },
  'invalid-encoding': { status: 400, message: 'the body is not valid UTF-8' },
  'invalid-body': { status: 400, message: 'the body is not a delivery' },
  'unknown-webhook': { status: 403, message: 'no account of this receiver owns the webhook' },
  'shutting-down': { status: 503, message: 'the receiver is stopping; deliver again' },
  'request-timeout': { status: 408, message: 'the request did not arrive in time' },
  'connection-limit': { status: 503, message: 'the receiver has too many connections; deliver again' },
};

/**
 * The webhook receiver: raw body (size-limited) -> signature on the raw bytes
 * -> parse -> the secret of the body's webhook -> normalize -> inbox row and
 * items in one transaction -> 200. Nothing touches the database before the
 * signature is verified; a delivery is answered 200 only once committed, so
 * a crash before the answer costs a retry, never data.
 */
export function createWebhookReceiver(deps: WebhookReceiverDeps): WebhookReceiver {
  const { path, maxBodyBytes } = deps;
  const accounts = deps.accounts ?? [{ name: 'default' }];
  const only = accounts.length === 1 ? accounts[0]!.name : undefined;
  const owner = deps.owner ?? (async () => only);
  const clock = deps.clock ?? Date.now;
  const candidates = candidateSecrets(deps.secrets);
  const refreshers = new Map<string, SessionRefresher>();
  for (const a of accounts) {
    if (a.client === undefined) continue;
    refreshers.set(a.name, new SessionRefresher({ client: a.client, sink: deps.sink, account: a.name, clock, ...(deps.logger ? { logger: deps.logger } : {}), ...deps.refresh }));
  }
  const inFlight = new Set<Promise<void>>();
  let draining = false;

  const report = (reason: RefusalReason, remote: string | undefined): void => {
    const { status } = REFUSALS[reason];
    deps.logger?.warn({ status, reason, remote }, 'webhook delivery refused');
    deps.onDelivery?.({ outcome: 'refused', status, reason });
  };

  const refuse = (res: ServerResponse, reason: RefusalReason, remote: string | undefined): void => {
    const { status, message } = REFUSALS[reason];
    report(reason, remote);
    const extra: Record<string, string> = {};
    if (reason === 'method-not-allowed') extra['Allow'] = 'POST';
    // The rest of an oversized body is not read; the connection cannot be reused.
    if (reason === 'too-large' || reason === 'shutting-down') extra['Connection'] = 'close';
    send(res, status, { error: message }, extra);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const remote = req.socket.remoteAddress;
    const pathname = new URL(req.url ?? '/', 'http://receiver').pathname;
    if (pathname !== path) return refuse(res, 'not-found', remote);
    if (req.method !== 'POST') return refuse(res, 'method-not-allowed', remote);
    if (draining) return refuse(res, 'shutting-down', remote);

    const raw = await readRawBody(req, maxBodyBytes);
    if (!raw.ok) {
      if (raw.reason === 'aborted') return;
      return refuse(res, 'too-large', remote);
    }
    const check = checkSignature(raw.bytes, req.headers[SIGNATURE_HEADER], candidates);
    if (check.verdict !== 'ok') return refuse(res, `signature-${check.verdict}`, remote);
    const text = strictUtf8(raw.bytes);
    if (text === undefined) return refuse(res, 'invalid-encoding', remote);
    const parsed = parseDeliveryBody(text);
    if (!parsed.ok) return refuse(res, 'invalid-body', remote);
    const { webhookUuid, channel, items, itemTexts } = parsed.body;
    // Any configured secret may open the body; only the webhook's own may have signed it.
    const expected = expectedSecret(deps.secrets, webhookUuid);
    if (expected === undefined || !check.matched.includes(expected)) return refuse(res, 'wrong-secret-for-webhook', remote);

    const account = await owner(webhookUuid);
    if (account === undefined) return refuse(res, 'unknown-webhook', remote);
    const receivedAt = toIsoMicros(clock() / 1000);
    const batch = normalizeDelivery(items, account, receivedAt, itemTexts);
    await deps.beforeCommit?.();
    let result: DeliveryResult;
    try {
      result = await deps.sink.applyDelivery(
        { id: deliveryId(webhookUuid, raw.bytes), webhookUuid, channel, receivedAt, items: items.length, body: text },
        batch,
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      deps.logger?.error({ webhookUuid, channel, error: message }, 'webhook delivery not committed; the service will retry');
      deps.onDelivery?.({ outcome: 'failed', status: 500, error: message });
      send(res, 500, { error: 'the delivery could not be stored; deliver again' });
      return;
    }
    const serviceIds = batch.sessions.map((s) => s.row.service_id);
    send(res, 200, { status: 'ok', duplicate: result.duplicate, applied: result.written, stale: result.stale, rejected: result.rejected });
    deps.logger?.debug({ webhookUuid, channel, items: items.length, applied: result.written, stale: result.stale, duplicate: result.duplicate }, 'webhook delivery');
    deps.onDelivery?.({
      outcome: result.duplicate ? 'duplicate' : 'accepted',
      status: 200,
      account,
      webhookUuid,
      channel,
      items: items.length,
      applied: result.written,
      stale: result.stale,
      rejected: result.rejected,
      serviceIds,
    });
    const refresher = refreshers.get(account);
    if (refresher !== undefined && !result.duplicate) {
      for (const session of batch.sessions) {
        const known = result.previousCounters[session.resource].get(session.row.service_id);
        if (refreshReason(known, session.row.update_counter) !== null) refresher.request(session.resource, session.row.service_id);
      }
    }
  };

  const receiver = ((req: IncomingMessage, res: ServerResponse): void => {
    const work = handle(req, res).catch((error: unknown) => {
      deps.logger?.error({ error: error instanceof Error ? error.message : String(error) }, 'webhook receiver failed');
      send(res, 500, { error: 'internal error' });
    });
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  }) as WebhookReceiver;

  Object.defineProperties(receiver, {
    path: { value: path, enumerable: true },
    inFlight: { get: () => inFlight.size, enumerable: true },
    drain: {
      value: async (): Promise<void> => {
        draining = true;
        while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        await Promise.all([...refreshers.values()].map((r) => r.close()));
      },
    },
    idle: {
      value: async (): Promise<void> => {
        while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        await Promise.all([...refreshers.values()].map((r) => r.idle()));
      },
    },
    refused: { value: (reason: ConnectionRefusal, remote: string | undefined): void => report(reason, remote) },
  });
  return receiver;
}
