import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono, type Context } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { HTTPException } from 'hono/http-exception';
import { verificationValue } from '../webhooks/domain-verification.js';
import type { WebhookReceiver } from '../webhooks/webhook-receiver.js';
import type { Exposure } from './exposure.js';
import type { HttpApp } from './http-app.js';
import type { RunStarter } from '../daemon/on-demand-runs.js';
import { runRoutes } from './run-routes.js';
import { statusRoutes, type StatusReader } from './status-routes.js';

export interface RouterOptions {
  /** Who may use the routes that are not public (see exposure.ts). */
  exposure: Exclude<Exposure, { auth: 'refused' }>;
  /** `GET /healthz`: its status code and JSON body. */
  health: () => { status: number; body: unknown };
  /** `GET /metrics` (Prometheus text). @default not served */
  metrics?: { contentType: string; text: () => Promise<string> } | undefined;
  /** The webhook receiver at its path. @default not served */
  webhook?:
    | {
        receiver: Pick<WebhookReceiver, 'path' | 'handle'>;
        /** Requests no route takes go to the receiver, which answers and counts them (`webhooks serve`). */
        takesTheRest: boolean;
        /** token -> value served as text/plain at /.well-known/service-domain-verification/<token>. @default {} */
        domainVerifications?: Readonly<Record<string, string>> | undefined;
      }
    | undefined;
  /** The status page, its JSON and the run details. @default not served */
  status?: StatusReader | undefined;
  /** `POST /runs` (the daemon's). @default not served: the page is read-only */
  runs?: RunStarter | undefined;
}

const NOT_FOUND = { error: 'not found' };

/** Hands the request to the receiver, which reads the raw bytes and answers on the node response itself. */
async function toReceiver(
  c: Context<{ Bindings: HttpBindings }>,
  receiver: Pick<WebhookReceiver, 'handle'>,
): Promise<Response> {
  await receiver.handle(c.env.incoming, c.env.outgoing);
  return RESPONSE_ALREADY_SENT;
}

/**
 * The routes of one server. `/healthz`, the receiver and the domain
 * verification pages are public (the service and load balancers call them);
 * beyond loopback every other route needs `Authorization: Bearer <IVS_UI_TOKEN>`.
 */
export function buildRouter(options: RouterOptions): HttpApp {
  const app: HttpApp = new Hono();
  const webhook = options.webhook;
  const publicPath = (path: string): boolean =>
    path === '/healthz' ||
    path === webhook?.receiver.path ||
    (webhook !== undefined && path.startsWith('/.well-known/'));
  app.use('*', async (c, next) => {
    c.header('Cache-Control', 'no-store');
    await next();
  });
  const exposure = options.exposure;
  if (exposure.auth === 'bearer') {
    // hono compares the token in constant time.
    const guard = bearerAuth<{ Bindings: HttpBindings }>({ token: exposure.token.reveal() });
    app.use('*', (c, next) => (publicPath(c.req.path) || webhook?.takesTheRest === true ? next() : guard(c, next)));
  }
  app.get('/healthz', (c) => {
    const health = options.health();
    return c.json(health.body, health.status as 200);
  });
  if (webhook !== undefined) {
    const verifications = webhook.domainVerifications ?? {};
    app.all(webhook.receiver.path, (c) => toReceiver(c, webhook.receiver));
    app.get('/.well-known/*', (c) => {
      const value = verificationValue(c.req.path, verifications);
      if (value !== undefined) return c.text(value);
      return webhook.takesTheRest ? toReceiver(c, webhook.receiver) : c.json(NOT_FOUND, 404);
    });
  }
  if (options.metrics !== undefined) {
    const metrics = options.metrics;
    app.get('/metrics', async (c) => c.body(await metrics.text(), 200, { 'Content-Type': metrics.contentType }));
  }
  if (options.status !== undefined) statusRoutes(app, options.status);
  if (options.runs !== undefined) runRoutes(app, options.runs);
  const { status, runs } = options;
  if (status !== undefined || runs !== undefined) {
    // A run on demand is known here from its request on; its row in the tables from its start on.
    app.get('/runs/:id', async (c) => {
      const id = c.req.param('id');
      const live = runs?.get(id);
      const stored = await status?.run(id);
      if (live === undefined && stored === undefined) return c.json({ error: `no run ${id}` }, 404);
      const state = live?.state ?? (stored?.run.status as string);
      return c.json({ id, state, ...(live !== undefined ? { live } : {}), ...(stored ?? {}) });
    });
  }
  // What is served only to GET answers 405 to other methods.
  app.on(['POST', 'PUT', 'PATCH', 'DELETE'], ['/healthz', '/metrics', '/', '/api/status'], (c) =>
    webhook?.takesTheRest === true
      ? toReceiver(c, webhook.receiver)
      : c.json({ error: 'method not allowed' }, 405, { Allow: 'GET, HEAD' }),
  );
  app.notFound((c) => (webhook?.takesTheRest === true ? toReceiver(c, webhook.receiver) : c.json(NOT_FOUND, 404)));
  // A refused token is an HTTPException that carries its own 401.
  app.onError((error, c) =>
    error instanceof HTTPException ? error.getResponse() : c.json({ error: error.message }, 500),
  );
  return app;
}
