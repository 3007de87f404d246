import type { RunningSimulator } from '../../src/simulator/index.js';

export interface CallOptions {
  body?: unknown;
  /** Raw body text (sent as is). */
  rawBody?: string;
  token?: string | null;
  version?: string | null;
  language?: string;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

/** One request to the simulator over real HTTP; v1.4 headers unless told otherwise. */
export async function call(
  sim: RunningSimulator,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult> {
  const headers: Record<string, string> = {};
  const version = options.version === undefined ? (path.startsWith('/v2/') ? '2.0.0' : '1.4') : options.version;
  if (version !== null) headers['Api-Version'] = version;
  const token = options.token === undefined ? 'test-token' : options.token;
  if (token !== null) headers.Authorization = `Token ${token}`;
  if (options.language !== undefined) headers['Accept-Language'] = options.language;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${sim.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // left empty: the test looks at text
  }
  return { status: response.status, headers: response.headers, text, json };
}

type Item = Record<string, unknown>;

/**
 * Pages a search to the end (next_cursor null or []), sending each cursor back as it came; returns every page's body.
 */
export async function crawl(
  sim: RunningSimulator,
  path: string,
  body: Record<string, unknown> = {},
  options: CallOptions = {},
): Promise<Item[]> {
  const pages: Item[] = [];
  let cursor: unknown = null;
  for (let i = 0; i < 10_000; i++) {
    const page = await call(sim, 'POST', path, { ...options, body: { ...body, cursor } });
    if (page.status !== 200) throw new Error(`page ${i}: ${page.status} ${page.text}`);
    pages.push(page.json);
    cursor = page.json.next_cursor;
    if (cursor === null || (Array.isArray(cursor) && cursor.length === 0)) return pages;
  }
  throw new Error('too many pages');
}

export const itemsOf = (pages: Item[]): Item[] => pages.flatMap((p) => p.items as Item[]);
export const epochOf = (item: Item): number => (item.timestamp as { epoch: number }).epoch;
