import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { createClient } from '../../src/api/client.js';
import type { ServiceClient } from '../../src/api/service-client.js';
import { Secret } from '../../src/config/secret.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { openSink } from '../../src/store/open-sink.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import type { ConnectionLimits } from '../../src/webhooks/connection-guard.js';
import {
  createWebhookReceiver,
  type DeliveryEvent,
  type WebhookReceiver,
} from '../../src/webhooks/webhook-receiver.js';
import type { WebhookSecrets } from '../../src/webhooks/webhook-secrets.js';
import { startWebhookServer, type RunningWebhookServer } from '../../src/http/webhook-server.js';
import { query } from '../helpers/sqlite-target.js';
import { clientOptions } from '../helpers/client-options.js';

export const SECRET = new Secret('receiver-secret-of-32-characters!');
export const TOKEN = 'test-token';

export const sign = (secret: Secret, body: string | Buffer): string =>
  `SHA256:${createHmac('sha256', secret.reveal()).update(body).digest('base64')}`;

export interface Harness {
  db: string;
  sink: QueryableSink;
  receiver: WebhookReceiver;
  server: RunningWebhookServer;
  /** The delivery URL. */
  url: string;
  events: DeliveryEvent[];
  close(): Promise<void>;
}

/** A receiver over real HTTP on 127.0.0.1 writing into a real SQLite file in `dir`. */
export async function startHarness(
  dir: string,
  options: {
    secrets?: WebhookSecrets;
    maxBodyBytes?: number;
    client?: ServiceClient;
    domainVerifications?: Record<string, string>;
    limits?: ConnectionLimits;
    /** The receiver's clock (milliseconds): when a delivery arrived. @default Date.now */
    clock?: () => number;
  } = {},
): Promise<Harness> {
  const db = join(dir, 'target.sqlite');
  const sink = await openSink(`sqlite:${db}`);
  const events: DeliveryEvent[] = [];
  const receiver = createWebhookReceiver({
    sink,
    secrets: options.secrets ?? { byUuid: {}, defaultSecret: SECRET },
    path: '/webhooks',
    maxBodyBytes: options.maxBodyBytes ?? 1_048_576,
    accounts: [{ name: 'default', client: options.client }],
    onDelivery: (event) => events.push(event),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
  });
  const server = await startWebhookServer({
    receiver,
    port: 0,
    host: '127.0.0.1',
    domainVerifications: options.domainVerifications ?? {},
    ...(options.limits !== undefined ? { limits: options.limits } : {}),
  });
  return {
    db,
    sink,
    receiver,
    server,
    url: `${server.url}/webhooks`,
    events,
    async close() {
      await server.close();
      await sink.close();
    },
  };
}

export async function startSim(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  return startSimulator({ sessions: 60, rate: 100_000, burst: 100_000, webhookRetryBaseMs: 5, ...options });
}

export function clientFor(sim: RunningSimulator): ServiceClient {
  return createClient(clientOptions(sim.url, { token: new Secret(TOKEN) }));
}

/** A webhook at the simulator that delivers to `url`, signed with `secret`. */
export async function createWebhook(
  client: ServiceClient,
  url: string,
  activityNames: string[] = ['authentication', 'fingerprint'],
  secret: Secret = SECRET,
): Promise<string> {
  const created = (await client.webhooks.create({
    endpoint: url,
    secretKey: secret,
    filters: [{ key: 'activity.name', values: activityNames }],
  })) as { webhook_uuid: string };
  return created.webhook_uuid;
}

export function post(
  url: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<Response> {
  return fetch(url, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
  });
}

export function count(db: string, table: string): number {
  return query<{ n: number }>(db, `SELECT count(*) AS n FROM ${table}`)[0]!.n;
}

export function row(
  db: string,
  table: 'authentications' | 'fingerprints',
  serviceId: string,
): Record<string, unknown> | undefined {
  return query(db, `SELECT * FROM ${table} WHERE service_id = ?`, serviceId)[0];
}

/** A signed delivery of one session (a v2 item, so no simulator is needed). */
export function signedDelivery(
  serviceId: string,
  secret: Secret = SECRET,
): { body: string; headers: Record<string, string> } {
  const item =
    `{"service_id": "${serviceId}", "activity": {"name": "authentication"}, "timestamp": {"created_at": ` +
    `"2026-01-01T00:00:00Z"}}`;
  const body = `{"channel": "default", "webhook_uuid": "wh-signed", "item_count": 1, "items": [${item}]}`;
  return { body, headers: { 'Service-Signature': sign(secret, body) } };
}

/** A delivery body as the service sends it, for a session of the simulator in its present state. */
export function deliveryBody(
  sim: RunningSimulator,
  serviceId: string,
  webhookUuid: string,
  extra: Record<string, unknown> = {},
): string {
  const record = sim.world.get(serviceId);
  if (record === undefined) throw new Error(`no session ${serviceId}`);
  const { item } = sim.world.render(record as Parameters<RunningSimulator['world']['render']>[0], {
    viewer: null,
    apiVersion: '1.4',
    webhook: true,
  });
  return JSON.stringify({ channel: 'default', webhook_uuid: webhookUuid, item_count: 1, items: [item], ...extra });
}
