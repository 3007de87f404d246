import { zod } from '../config/lazy-packages.js';
import type { RunStarter } from '../daemon/on-demand-runs.js';
import type { HttpApp } from './http-app.js';

const { z } = zod();

/** The body of `POST /runs` (a RunRequest): `from`/`to` as ISO 8601 or epoch seconds. */
export const RUN_REQUEST = z.strictObject({
  account: z.string().min(1),
  command: z.enum(['sync', 'backfill', 'verify']),
  from: z.union([z.string().min(1), z.number()]).optional(),
  to: z.union([z.string().min(1), z.number()]).optional(),
});
/** `POST /runs`: 202 with the run id, 409 naming the lease holder, 400 for a bad request. */
export function runRoutes(app: HttpApp, runs: RunStarter): void {
  app.post('/runs', async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(
        {
          error:
            'the body is not JSON: ' +
            '{"account": ..., "command": "sync" | "backfill" | "verify", "from"?: ..., "to"?: ...}',
        },
        400,
      );
    }
    const parsed = RUN_REQUEST.safeParse(body);
    if (!parsed.success)
      return c.json(
        { error: parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') },
        400,
      );
    const result = await runs.start(parsed.data);
    if (result.ok)
      return c.json({ id: result.id, status: 'running', url: `/runs/${result.id}` }, 202, {
        Location: `/runs/${result.id}`,
      });
    if (result.status === 409) return c.json({ error: result.error, holder: result.holder }, 409);
    return c.json({ error: result.error }, result.status);
  });
}
