import type { ClientOptions } from '../../src/api/client.js';
import { RateLimiter } from '../../src/api/rate-limiter.js';
import { Secret } from '../../src/config/secret.js';

/**
 * A client's options as tests use them: the simulator's token, a bucket far
 * above the simulator's rate, and short retry waits, so a fault costs
 * milliseconds. Every member can be overridden.
 */
export function clientOptions(baseUrl: string, overrides: Partial<ClientOptions> = {}): ClientOptions {
  return {
    baseUrl,
    token: new Secret('test-token'),
    apiVersion: '1.4',
    limiter: new RateLimiter({ rate: 10_000 }),
    timeoutMs: 30_000,
    acceptLanguage: 'en',
    retry: { limit: 8, baseMs: 5, maxMs: 20 },
    v2: { apiVersionHeader: '2.0.0', paths: {} },
    ...overrides,
  };
}
