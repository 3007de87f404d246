import { createClient, type ServiceClient } from '../api/client.js';
import { RateLimiter } from '../api/rate-limiter.js';
import type { RequestEvent } from '../api/service-client.js';
import type { AccountConfig, Config } from '../config/config.js';
import { UserError } from '../errors.js';

/** An account with its client and bucket: one per token for the life of the process. */
export interface BoundAccount {
  config: AccountConfig;
  client: ServiceClient;
  limiter: RateLimiter;
}

/**
 * One client per account, each with its own bucket: the bucket is per token,
 * and every request of every worker of the account passes through it.
 */
export function bindAccounts(
  config: Config,
  accounts: readonly AccountConfig[],
  logger: { debug(fields: Record<string, unknown>, message: string): void },
  onRequest?: (account: string, event: RequestEvent) => void,
): BoundAccount[] {
  return accounts.map((account) => {
    if (!account.baseUrl) {
      throw new UserError(
        'NO_BASE_URL',
        `no service URL for account '${account.name}': give --base-url or IVS_BASE_URL`,
      );
    }
    if (!account.token) {
      throw new UserError(
        'NO_TOKEN',
        `no API token for account '${account.name}': set ${account.tokenEnv} (or --token)`,
      );
    }
    const limiter = new RateLimiter({ rate: account.rate });
    const client = createClient({
      baseUrl: account.baseUrl,
      token: account.token,
      apiVersion: account.apiVersion,
      limiter,
      timeoutMs: config.http.timeoutMs,
      acceptLanguage: config.http.acceptLanguage,
      retry: { limit: config.http.retryLimit, baseMs: config.http.retryBaseMs, maxMs: config.http.retryMaxMs },
      v2: { apiVersionHeader: config.v2.apiVersionHeader, paths: config.v2.paths },
      onRequest: (event) => {
        logger.debug({ account: account.name, ...event }, 'request');
        onRequest?.(account.name, event);
      },
    });
    return { config: account, client, limiter };
  });
}

/** Closes the clients of bound accounts (their keep-alive sockets), whatever else failed. */
export function closeAccounts(bound: readonly BoundAccount[]): void {
  for (const b of bound) b.client.close();
}
