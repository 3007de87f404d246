import type { ClientOptions } from '../src/api/client.js';
import { RateLimiter } from '../src/api/rate-limiter.js';
import { DEFAULTS } from '../src/config/defaults.js';
import { Secret } from '../src/config/secret.js';

/** A client's options as a default configuration gives them, for benches that drive the client directly. */
export function benchClientOptions(
  baseUrl: string,
  token: string,
  rate: number,
  overrides: Partial<ClientOptions> = {},
): ClientOptions {
  return {
    baseUrl,
    token: new Secret(token),
    apiVersion: '1.4',
    limiter: new RateLimiter({ rate }),
    timeoutMs: DEFAULTS.http.timeoutMs,
    acceptLanguage: DEFAULTS.http.acceptLanguage,
    retry: { limit: DEFAULTS.http.retryLimit, baseMs: DEFAULTS.http.retryBaseMs, maxMs: DEFAULTS.http.retryMaxMs },
    v2: { apiVersionHeader: DEFAULTS.v2.apiVersionHeader, paths: {} },
    ...overrides,
  };
}
