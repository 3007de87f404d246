import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { configTemplate, envTemplate } from '../../config/config-template.js';
import type { Config } from '../../config/config.js';
import { DEFAULTS } from '../../config/defaults.js';
import { loadConfig } from '../../config/load-config.js';
import { locateConfigFile } from '../../config/read-config-file.js';
import { UserError } from '../../errors.js';
import { checkCredentials, type CredentialCheck } from '../check-credentials.js';
import { USES } from './option-sets.js';
import { EXIT, type CliCommand } from '../command.js';
import { configFlags } from '../config-flags.js';
import { loggerFor, selectAccounts } from '../runtime.js';

interface InitArgs {
  dir: string;
  force?: boolean;
}

const DEFAULT_DIR = './config';
/** Only its owner may read the file that will hold the token. */
const ENV_FILE_MODE = 0o600;

type Credentials = { status: 'ok'; accounts: CredentialCheck[] } | { status: 'skipped'; reason: string };

/** What the token check needs and did not get, in words; undefined when every account has both. */
function missingForCheck(accounts: Config['accounts']): string | undefined {
  const missing: string[] = [];
  if (accounts.some((a) => !a.baseUrl)) missing.push('no base URL (--base-url or IVS_BASE_URL)');
  if (accounts.some((a) => !a.token))
    missing.push(`no token (--token or ${accounts.find((a) => !a.token)?.tokenEnv ?? 'IVS_API_TOKEN'})`);
  return missing.length === 0 ? undefined : missing.join(' and ');
}

function day(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 10);
}

/** The three commands to run next; `--config` only when the default lookup would not find the file just written. */
function nextCommands(
  configPath: string,
  env: Readonly<Record<string, string | undefined>>,
  nowSeconds: number,
): Array<{ command: string; why: string }> {
  const found = locateConfigFile(undefined, env.IVS_CONFIG, existsSync);
  const prefix =
    found !== undefined && resolve(found.path) === resolve(configPath) ? 'ivsync' : `ivsync --config ${configPath}`;
  return [
    {
      command: `${prefix} backfill --from ${day(nowSeconds - 365 * 86_400)} --to ${day(nowSeconds)}`,
      why: 'the history, here the last year; Ctrl-C and the same command resume',
    },
    {
      command: `${prefix} sync`,
      why: 'from cron every few minutes; or `ivsync daemon --port 9090` keeps syncing by itself',
    },
    { command: `${prefix} status`, why: 'rows, checkpoints, freshness and the last runs' },
  ];
}

export const initCommand: CliCommand<InitArgs> = {
  command: 'init',
  describe:
    'write a commented config file with every default (ivsync.yaml) and an env file for the secrets ' +
    '(ivsync.env), then check the token',
  uses: USES.crawl,
  examples: [
    ['$0 init --base-url https://api.example.com', 'write ./config/ivsync.yaml and ./config/ivsync.env'],
    [
      '$0 init --dir /etc/ivsync --db postgres://ivsync@db.internal/analytics',
      'for a Postgres target, in another folder',
    ],
  ],
  builder: (yargs) =>
    yargs
      .option('dir', { type: 'string', default: DEFAULT_DIR, describe: 'where to write ivsync.yaml and ivsync.env' })
      .option('force', { type: 'boolean', describe: 'replace files that exist already' }),
  run: async ({ args, io, runId }) => {
    const configPath = join(args.dir, 'ivsync.yaml');
    const envPath = join(args.dir, 'ivsync.env');
    const existing = [configPath, envPath].filter((p) => existsSync(p));
    if (existing.length > 0 && args.force !== true) {
      throw new UserError(
        'INIT_EXISTS',
        `${existing.join(' and ')} ${existing.length > 1 ? 'exist' : 'exists'} already: nothing written ` +
          `(--force replaces ${existing.length > 1 ? 'them' : 'it'})`,
      );
    }
    mkdirSync(args.dir, { recursive: true });
    writeFileSync(configPath, configTemplate());
    writeFileSync(
      envPath,
      envTemplate(envPath, [
        {
          name: 'IVS_BASE_URL',
          text: 'Service root (plain http:// only for loopback hosts).',
          value: args.baseUrl,
          example: 'https://api.example.com',
        },
        { name: 'IVS_API_TOKEN', text: 'API token of the account; ivsync never prints, logs or stores it.' },
        {
          name: 'IVS_WEBHOOK_SECRET',
          text: 'Secret the service signs webhook deliveries with, 20 characters or more (webhooks only).',
        },
        {
          name: 'IVS_DB',
          text: 'Target: sqlite:PATH, duckdb:PATH or postgres://user@host/db.',
          value: args.db,
          example: DEFAULTS.db,
        },
      ]),
      { mode: ENV_FILE_MODE },
    );
    // writeFileSync's mode applies only to a new file: --force over an old one must tighten it too.
    chmodSync(envPath, ENV_FILE_MODE);

    // Read back through the loader, as every later command will read it.
    const config = loadConfig({ flags: { ...configFlags(args), config: configPath }, env: io.env, clock: io.clock });
    const written = [
      { path: configPath, what: 'every member with its default, commented' },
      { path: envPath, what: 'mode 0600: IVS_BASE_URL, IVS_API_TOKEN, IVS_WEBHOOK_SECRET, IVS_DB' },
    ];
    if (!config.json) io.stdout.write(written.map((f) => `wrote ${f.path} (${f.what})\n`).join(''));

    const accounts = selectAccounts(config, args.account);
    const missing = missingForCheck(accounts);
    const credentials: Credentials =
      missing === undefined
        ? { status: 'ok', accounts: await checkCredentials(config, accounts, loggerFor(config, io, runId())) }
        : { status: 'skipped', reason: missing };
    const next = nextCommands(configPath, io.env, io.clock() / 1000);
    if (config.json) {
      io.stdout.write(
        `${JSON.stringify({ files: written.map((f) => f.path), credentials, next: next.map((n) => n.command) })}\n`,
      );
      return EXIT.ok;
    }
    io.stdout.write(
      credentials.status === 'ok'
        ? `credentials: ${credentials.accounts.map((a) => `${a.account} ok (api ${a.apiVersion})`).join(', ')}\n`
        : `credentials: NOT CHECKED: ${credentials.reason}; fill in ${envPath} and run ivsync health\n`,
    );
    const width = Math.max(...next.map((n) => n.command.length));
    io.stdout.write(`next:\n${next.map((n) => `  ${n.command.padEnd(width)}   # ${n.why}\n`).join('')}`);
    return EXIT.ok;
  },
};
