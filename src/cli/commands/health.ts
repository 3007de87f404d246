import { EXIT, type CliCommand } from '../command.js';
import { bindAccounts, loggerFor, newRunId, selectAccounts } from '../runtime.js';

export const healthCommand: CliCommand = {
  command: 'health',
  describe: 'check the credentials of every account against the service',
  run: async ({ args, io, config: load }) => {
    const config = load();
    const logger = loggerFor(config, io, newRunId());
    const accounts = bindAccounts(config, selectAccounts(config, args.account), logger);
    const results = [];
    for (const account of accounts) {
      await account.client.health();
      results.push({ account: account.config.name, apiVersion: account.config.apiVersion, status: 'ok' });
    }
    io.stdout.write(config.json ? `${JSON.stringify(results)}\n` : results.map((r) => `${r.account}: ok (api ${r.apiVersion})\n`).join(''));
    return EXIT.ok;
  },
};
