import type { Language } from './catalog.js';

/** Which Api-Version values a route accepts. */
export type VersionRule = 'v1' | 'v1-webhook-create' | 'v2';

export interface RouteRequest {
  /** Username behind the token. */
  owner: string;
  /** Path parameters, decoded. */
  params: readonly string[];
  query: URLSearchParams;
  /** The parsed JSON body; undefined when the request had none. */
  body: unknown;
  language: Language;
  nowMs: number;
}

export interface Reply {
  status: number;
  body: unknown;
}

export interface Route {
  readonly method: 'GET' | 'POST';
  /** Matched against the whole path; groups are the path parameters. */
  readonly pattern: RegExp;
  /** Method and templated path, for stats (no ids). */
  readonly name: string;
  readonly version: VersionRule;
  /** Whether a body is read as JSON (malformed JSON is a 400 before the handler runs). */
  readonly jsonBody: boolean;
  handle(request: RouteRequest): Reply;
}

/** The error body the simulator uses everywhere (the spec does not show one). Never carries the token. */
export function errorReply(status: number, code: string, message: string): Reply {
  return { status, body: { error: { code, message } } };
}

export const ok = (body: unknown): Reply => ({ status: 200, body });

const SEGMENT = '([^/]+)';

/** '/v1/authentications/{id}' -> a RegExp with one group per parameter. */
export function pathPattern(template: string): RegExp {
  const escaped = template
    .split(/\{[a-z_]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join(SEGMENT);
  return new RegExp(`^${escaped}$`);
}

export function route(
  method: 'GET' | 'POST',
  template: string,
  version: VersionRule,
  handle: (request: RouteRequest) => Reply,
  jsonBody = method === 'POST',
): Route {
  return { method, pattern: pathPattern(template), name: `${method} ${template}`, version, jsonBody, handle };
}
