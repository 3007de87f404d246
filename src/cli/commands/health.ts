import { checkCredentials } from '../check-credentials.js';
import { USES } from './option-sets.js';
import { EXIT, type CliCommand } from '../command.js';
import { loggerFor, selectAccounts } from '../runtime.js';

export const healthCommand: CliCommand = {
  command: 'health',
  describe: 'check the credentials of every account against the service',
  uses: USES.service,
  examples: [
    ['$0 health', 'check every configured account'],
    ['$0 health --account shop-eu --json', 'one account, as JSON'],
  ],
  run: async ({ args, io, config: load, runId }) => {
    const config = load();
    const logger = loggerFor(config, io, runId());
    const results = await checkCredentials(config, selectAccounts(config, args.account), logger);
    io.stdout.write(
      config.json
        ? `${JSON.stringify(results)}\n`
        : results.map((r) => `${r.account}: ok (api ${r.apiVersion})\n`).join(''),
    );
    return EXIT.ok;
  },
};
