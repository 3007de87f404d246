import type { AccountConfig, Config } from '../config/config.js';
import type { Logger } from './logger.js';
import { bindAccounts } from '../app/bind-accounts.js';

export interface CredentialCheck {
  account: string;
  apiVersion: string;
  status: 'ok';
}

/**
 * Asks the service whether each account's token is good (`ivsync health`, and
 * `ivsync init` when it has a base URL and a token). Throws the client's one-line
 * error, e.g. `the service rejected the token (401)`, at the first account refused.
 */
export async function checkCredentials(
  config: Config,
  accounts: readonly AccountConfig[],
  logger: Logger,
): Promise<CredentialCheck[]> {
  const bound = bindAccounts(config, accounts, logger);
  try {
    const results: CredentialCheck[] = [];
    for (const account of bound) {
      await account.client.health();
      results.push({ account: account.config.name, apiVersion: account.config.apiVersion, status: 'ok' });
    }
    return results;
  } finally {
    for (const account of bound) account.client.close();
  }
}
