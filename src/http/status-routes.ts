import type { HttpApp } from './http-app.js';
import type { RunDetail } from './run-detail.js';
import { STATUS_PAGE } from './status-page.js';
import type { StatusSnapshot } from './status-snapshot.js';

/** What the page's routes read; every figure comes from the target's tables. */
export interface StatusReader {
  snapshot(): Promise<StatusSnapshot>;
  run(id: string): Promise<RunDetail | undefined>;
}

/** `GET /` (the page), `GET /api/status` (its JSON). */
export function statusRoutes(app: HttpApp, reader: StatusReader): void {
  app.get('/', (c) => c.html(STATUS_PAGE));
  app.get('/api/status', async (c) => c.json(await reader.snapshot()));
}
