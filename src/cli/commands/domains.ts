import type { DomainRow } from '../../normalize/rows.js';
import { normalizeDomain } from '../../normalize/domain-row.js';
import { toIsoMicros } from '../../normalize/time.js';
import { InputError, UserError } from '../../errors.js';
import { openSink } from '../../store/open-sink.js';
import { DOMAIN_COLUMNS, domainCells } from '../../webhooks/management-tables.js';
import { USES } from './option-sets.js';
import { EXIT, type CliCommand } from '../command.js';
import { bindAccounts } from '../../app/bind-accounts.js';
import { loggerFor, selectAccounts } from '../runtime.js';
import { renderTable } from '../text-table.js';

const listCommand: CliCommand = {
  command: 'list',
  describe: 'list the domains registered for webhook endpoints (all pages) and mirror them into the domains table',
  examples: [['$0 domains list', 'the registered domains, as a table']],
  run: async ({ args, io, config: load, runId }) => {
    const config = load();
    const logger = loggerFor(config, io, runId());
    const accounts = selectAccounts(config, args.account);
    if (accounts.length > 1) {
      throw new InputError(
        'ACCOUNT_REQUIRED',
        `several accounts are configured (${accounts.map((a) => a.name).join(', ')}): name one with --account`,
      );
    }
    const [bound] = bindAccounts(config, accounts, logger);
    if (bound === undefined) throw new UserError('NO_ACCOUNT', 'no account is configured');
    const sink = await openSink(config.db);
    try {
      const now = toIsoMicros(io.clock() / 1000);
      const objects: unknown[] = [];
      for await (const obj of bound.client.domains.list()) objects.push(obj);
      const rows = objects
        .map((obj) => normalizeDomain(obj, bound.config.name, now))
        .filter((r): r is DomainRow => r !== null);
      await sink.replaceMirror('domains', bound.config.name, rows);
      io.stdout.write(
        config.json ? `${JSON.stringify(objects)}\n` : renderTable(DOMAIN_COLUMNS, rows.map(domainCells)),
      );
    } finally {
      bound.client.close();
      await sink.close();
    }
    return EXIT.ok;
  },
};

export const domainsCommand: CliCommand = {
  command: 'domains',
  describe: 'the domains registered to the organization for webhook endpoints (list)',
  uses: USES.crawl,
  examples: [['$0 domains list --json', 'the registered domains, as JSON']],
  subcommands: [listCommand] as ReadonlyArray<CliCommand<never>>,
};
