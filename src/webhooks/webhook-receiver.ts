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
  /**
   * The accounts the receiver writes for; a delivery's rows record its account.
   * @default one account 'default', no follow-up GETs
   */
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
  /**
   * Tuning of the follow-up GETs: a delivered session the target did not
   * hold, or whose counter jumped, is fetched after the answer.
   */
  refresh?: Pick<SessionRefresherOptions, 'maxPending' | 'priority'>;
  /**
   * Runs after a delivery was verified and parsed, just before its commit.
   * Crash tests stall here to kill the process between receipt and answer.
   * @default none
   */
  beforeCommit?: () => Promise<void>;
}

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8' };

function send(
  res: ServerResponse,
  status: number,
  body: Record<string, unknown>,
  extra: Record<string, string> = {},
): void {
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
 *
 * It answers on the node response itself, not through the router's response
 * object: an oversized body must be cut off unread, and the signature needs
 * the bytes exactly as they arrived.
 */
export class WebhookReceiver {
  readonly path: string;
  readonly #deps: WebhookReceiverDeps;
  readonly #owner: (webhookUuid: string | null) => Promise<string | undefined>;
  readonly #clock: () => number;
  readonly #candidates: ReturnType<typeof candidateSecrets>;
  readonly #refreshers = new Map<string, SessionRefresher>();
  readonly #inFlight = new Set<Promise<void>>();
  #draining = false;

  constructor(deps: WebhookReceiverDeps) {
    this.#deps = deps;
    this.path = deps.path;
    const accounts = deps.accounts ?? [{ name: 'default' }];
    const only = accounts.length === 1 ? accounts[0]!.name : undefined;
    this.#owner = deps.owner ?? (async () => only);
    this.#clock = deps.clock ?? Date.now;
    this.#candidates = candidateSecrets(deps.secrets);
    for (const a of accounts) {
      if (a.client === undefined) continue;
      const logger = deps.logger ? { logger: deps.logger } : {};
      const options = {
        client: a.client,
        sink: deps.sink,
        account: a.name,
        clock: this.#clock,
        ...logger,
        ...deps.refresh,
      };
      this.#refreshers.set(a.name, new SessionRefresher(options));
    }
  }

  /** Requests being handled now. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** Takes one request; it is answered (and counted) whatever happens, never thrown. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const work = this.#handle(req, res).catch((error: unknown) => {
      this.#deps.logger?.error(
        { error: error instanceof Error ? error.message : String(error) },
        'webhook receiver failed',
      );
      send(res, 500, { error: 'internal error' });
    });
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
    return work;
  }

  /**
   * Refuses new deliveries (503: the service retries them) and resolves when
   * the ones in flight were committed and answered and the follow-up GET in
   * flight has finished.
   */
  async drain(): Promise<void> {
    this.#draining = true;
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    await Promise.all([...this.#refreshers.values()].map((r) => r.close()));
  }

  /** Resolves when no request is being handled and no follow-up GET waits or runs. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    await Promise.all([...this.#refreshers.values()].map((r) => r.idle()));
  }

  /** Reports a request the hosting server turned away (time-out, connection cap) as this receiver's refusal. */
  refused(reason: ConnectionRefusal, remote: string | undefined): void {
    this.#report(reason, remote);
  }

  #report(reason: RefusalReason, remote: string | undefined): void {
    const { status } = REFUSALS[reason];
    this.#deps.logger?.warn({ status, reason, remote }, 'webhook delivery refused');
    this.#deps.onDelivery?.({ outcome: 'refused', status, reason });
  }

  #refuse(res: ServerResponse, reason: RefusalReason, remote: string | undefined): void {
    const { status, message } = REFUSALS[reason];
    this.#report(reason, remote);
    const extra: Record<string, string> = {};
    if (reason === 'method-not-allowed') extra['Allow'] = 'POST';
    // The rest of an oversized body is not read; the connection cannot be reused.
    if (reason === 'too-large' || reason === 'shutting-down') extra['Connection'] = 'close';
    send(res, status, { error: message }, extra);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const deps = this.#deps;
    const remote = req.socket.remoteAddress;
    const pathname = new URL(req.url ?? '/', 'http://receiver').pathname;
    if (pathname !== this.path) return this.#refuse(res, 'not-found', remote);
    if (req.method !== 'POST') return this.#refuse(res, 'method-not-allowed', remote);
    if (this.#draining) return this.#refuse(res, 'shutting-down', remote);

    const raw = await readRawBody(req, deps.maxBodyBytes);
    if (!raw.ok) {
      if (raw.reason === 'aborted') return;
      return this.#refuse(res, 'too-large', remote);
    }
    const check = checkSignature(raw.bytes, req.headers[SIGNATURE_HEADER], this.#candidates);
    if (check.verdict !== 'ok') return this.#refuse(res, `signature-${check.verdict}`, remote);
    const text = strictUtf8(raw.bytes);
    if (text === undefined) return this.#refuse(res, 'invalid-encoding', remote);
    const parsed = parseDeliveryBody(text);
    if (!parsed.ok) return this.#refuse(res, 'invalid-body', remote);
    const { webhookUuid, channel, items, itemTexts } = parsed.body;
    // Any configured secret may open the body; only the webhook's own may have signed it.
    const expected = expectedSecret(deps.secrets, webhookUuid);
    if (expected === undefined || !check.matched.includes(expected)) {
      return this.#refuse(res, 'wrong-secret-for-webhook', remote);
    }

    const account = await this.#owner(webhookUuid);
    if (account === undefined) return this.#refuse(res, 'unknown-webhook', remote);
    const receivedAt = toIsoMicros(this.#clock() / 1000);
    const batch = normalizeDelivery(items, account, receivedAt, itemTexts);
    await deps.beforeCommit?.();
    let result: DeliveryResult;
    try {
      const id = deliveryId(webhookUuid, raw.bytes);
      result = await deps.sink.applyDelivery(
        { id, webhookUuid, channel, receivedAt, items: items.length, body: text },
        batch,
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      deps.logger?.error(
        { webhookUuid, channel, error: message },
        'webhook delivery not committed; the service will retry',
      );
      deps.onDelivery?.({ outcome: 'failed', status: 500, error: message });
      send(res, 500, { error: 'the delivery could not be stored; deliver again' });
      return;
    }
    const serviceIds = batch.sessions.map((s) => s.row.service_id);
    const { duplicate, written: applied, stale, rejected } = result;
    send(res, 200, { status: 'ok', duplicate, applied, stale, rejected });
    deps.logger?.debug({ webhookUuid, channel, items: items.length, applied, stale, duplicate }, 'webhook delivery');
    const outcome = duplicate ? 'duplicate' : 'accepted';
    const event = {
      outcome,
      status: 200,
      account,
      webhookUuid,
      channel,
      items: items.length,
      applied,
      stale,
      rejected,
      serviceIds,
    } as const;
    deps.onDelivery?.(event);
    const refresher = this.#refreshers.get(account);
    if (refresher === undefined || duplicate) return;
    for (const session of batch.sessions) {
      const known = result.previousCounters[session.resource].get(session.row.service_id);
      if (refreshReason(known, session.row.update_counter) !== null)
        refresher.request(session.resource, session.row.service_id);
    }
  }
}

/** The receiver for `deps`; see WebhookReceiver. */
export function createWebhookReceiver(deps: WebhookReceiverDeps): WebhookReceiver {
  return new WebhookReceiver(deps);
}
