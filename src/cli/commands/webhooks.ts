import { readFile } from 'node:fs/promises';
import type { ServiceClient } from '../../api/service-client.js';
import type { AccountConfig, Config } from '../../config/config.js';
import { InputError, UserError } from '../../errors.js';
import type { WebhookRow } from '../../normalize/rows.js';
import { toIsoMicros } from '../../normalize/time.js';
import { normalizeWebhook } from '../../normalize/webhook-row.js';
import { openSink } from '../../store/open-sink.js';
import type { QueryableSink } from '../../store/sql-sink.js';
import { parseDomainVerifications } from '../../webhooks/domain-verification.js';
import { WEBHOOK_COLUMNS, webhookCells } from '../../webhooks/management-tables.js';
import type { Logger } from '../logger.js';
import { oneLine } from '../one-line.js';
import { rethrowManagementFailure } from '../../webhooks/management-failure.js';
import { buildWebhookCreate } from '../../webhooks/webhook-create-request.js';
import { hasAnySecret, type WebhookSecrets } from '../../webhooks/webhook-secrets.js';
import { startWebhookServer } from '../../http/webhook-server.js';
import { USES } from './option-sets.js';
import { sendTestCommand } from './webhooks-send-test.js';
import { EXIT, type CliCommand, type CommandContext } from '../command.js';
import { bindAccounts } from '../../app/bind-accounts.js';
import { loggerFor, selectAccounts, type CliIo } from '../runtime.js';
import { receiverFor } from '../../app/receiver-for.js';
import { renderTable } from '../text-table.js';

interface ManagementScope {
  config: Config;
  logger: Logger;
  account: AccountConfig;
  client: ServiceClient;
  sink: QueryableSink;
  now: () => string;
}

/** The one account a management command talks for: the only one, or the one --account names. */
function oneAccount(config: Config, only: string | undefined): AccountConfig {
  const accounts = selectAccounts(config, only);
  if (accounts.length > 1) {
    throw new InputError(
      'ACCOUNT_REQUIRED',
      `several accounts are configured (${accounts.map((a) => a.name).join(', ')}): name one with --account`,
    );
  }
  return accounts[0] as AccountConfig;
}

async function withManagement<A>(
  ctx: CommandContext<A>,
  body: (scope: ManagementScope) => Promise<void>,
): Promise<number> {
  const config = ctx.config();
  const logger = loggerFor(config, ctx.io, ctx.runId());
  const account = oneAccount(config, ctx.args.account);
  const [bound] = bindAccounts(config, [account], logger);
  const client = (bound as NonNullable<typeof bound>).client;
  const sink = await openSink(config.db);
  try {
    await body({ config, account, client, sink, logger, now: () => toIsoMicros(ctx.io.clock() / 1000) });
  } finally {
    client.close();
    await sink.close();
  }
  return EXIT.ok;
}

function webhookRow(obj: unknown, account: string, now: string): WebhookRow {
  const row = normalizeWebhook(obj, account, now);
  if (row === null)
    throw new UserError('MALFORMED_WEBHOOK', 'the service answered with a webhook object without webhook_uuid');
  return row;
}

function printWebhooks(io: CliIo, json: boolean, objects: readonly unknown[], rows: readonly WebhookRow[]): void {
  io.stdout.write(json ? `${JSON.stringify(objects)}\n` : renderTable(WEBHOOK_COLUMNS, rows.map(webhookCells)));
}

/** A mirror write that fails after the service accepted a change must not read as if the change failed. */
async function mirrorAfterChange(logger: Logger, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    logger.warn(
      { error: oneLine(error instanceof Error ? error.message : String(error)) },
      'the service accepted the change, but the webhooks table was not updated',
    );
  }
}

interface CreateArgs {
  url?: string;
  secret?: string;
  channel?: string;
  filter?: string[];
}

const createCommand: CliCommand<CreateArgs> = {
  command: 'create',
  describe: 'create a webhook (the secret comes from --secret or IVS_WEBHOOK_SECRET and is never shown)',
  usage: 'webhooks create --url URL --filter activity.name=...',
  examples: [
    [
      '$0 webhooks create --url https://hooks.example.com/ivs --filter activity.name=authentication.completed',
      'deliveries of completed authentications; secret from IVS_WEBHOOK_SECRET',
    ],
  ],
  builder: (yargs) =>
    yargs
      .option('url', { type: 'string', describe: 'HTTPS endpoint on a registered domain (ivsync domains list)' })
      .option('secret', { type: 'string', describe: 'signing secret, at least 20 characters [env IVS_WEBHOOK_SECRET]' })
      .option('channel', { type: 'string', describe: "channel sent with every delivery (service default 'default')" })
      .option('filter', {
        type: 'string',
        array: true,
        describe:
          'key=value[,value...], repeatable; activity.name is required. Keys: activity.name, ' +
          'activity.form_factor, owner.user.username',
      }),
  run: async (ctx) => {
    const { args } = ctx;
    // Validated before any request: a mistake costs nothing at the service. --secret > IVS_WEBHOOK_SECRET >
    // webhooks.secret: the loader resolved the last two as the receiver's default secret.
    const request = buildWebhookCreate({
      url: args.url,
      secret: args.secret,
      envSecret: ctx.config().webhooks.defaultSecret?.reveal(),
      channel: args.channel,
      filters: args.filter ?? [],
    });
    return withManagement(ctx, async ({ config, account, client, sink, logger, now }) => {
      const { io } = ctx;
      const created = await client.webhooks.create(request).catch((error: unknown) =>
        rethrowManagementFailure(error, 'create', {
          hasUsernameFilter: request.filters.some((f) => f.key === 'owner.user.username'),
        }),
      );
      const row = webhookRow(created, account.name, now());
      await mirrorAfterChange(logger, () => sink.upsertMirror('webhooks', account.name, [row]));
      printWebhooks(io, config.json, [created], [row]);
    });
  },
};

const listCommand: CliCommand = {
  command: 'list',
  describe: 'list the active webhooks (all pages) and mirror them into the webhooks table',
  examples: [['$0 webhooks list --json', 'every active webhook, as JSON']],
  run: (ctx) =>
    withManagement(ctx, async ({ config, account, client, sink, now }) => {
      const at = now();
      const objects: unknown[] = [];
      for await (const obj of client.webhooks.list()) objects.push(obj);
      const rows = objects.map((obj) => webhookRow(obj, account.name, at));
      const listed = new Set(rows.map((r) => r.webhook_uuid));
      // The service lists active webhooks only: one mirrored before and not listed now was deactivated.
      const gone = (await sink.mirrorRows('webhooks', account.name))
        .filter((r) => !listed.has(String(r.webhook_uuid)))
        .map((r) => ({ ...r, active: false, last_synced_at: at }));
      await sink.replaceMirror('webhooks', account.name, [...rows, ...gone]);
      printWebhooks(ctx.io, config.json, objects, rows);
    }),
};

interface UuidArgs {
  uuid: string;
}

const showCommand: CliCommand<UuidArgs> = {
  command: 'show <uuid>',
  examples: [['$0 webhooks show 6f1c2a8e-0d3b-4a52-9e8f-5b7a1c9d2e40 --json', 'one webhook, as JSON']],
  describe: 'show one webhook and mirror it',
  builder: (yargs) => yargs.positional('uuid', { type: 'string', describe: 'webhook uuid', demandOption: true }),
  run: (ctx) =>
    withManagement(ctx, async ({ config, account, client, sink, now }) => {
      const obj = await client.webhooks
        .get(ctx.args.uuid)
        .catch((error: unknown) => rethrowManagementFailure(error, 'show', { uuid: ctx.args.uuid }));
      const row = webhookRow(obj, account.name, now());
      await sink.upsertMirror('webhooks', account.name, [row]);
      printWebhooks(ctx.io, config.json, [obj], [row]);
    }),
};

const deactivateCommand: CliCommand<UuidArgs> = {
  command: 'deactivate <uuid>',
  examples: [
    [
      '$0 webhooks deactivate 6f1c2a8e-0d3b-4a52-9e8f-5b7a1c9d2e40',
      'stop its deliveries; its row stays, active = false',
    ],
  ],
  describe: 'deactivate a webhook (its row stays in the webhooks table with active = false)',
  builder: (yargs) => yargs.positional('uuid', { type: 'string', describe: 'webhook uuid', demandOption: true }),
  run: (ctx) =>
    withManagement(ctx, async ({ config, account, client, sink, logger, now }) => {
      const { uuid } = ctx.args;
      await client.webhooks
        .deactivate(uuid)
        .catch((error: unknown) => rethrowManagementFailure(error, 'deactivate', { uuid }));
      await mirrorAfterChange(logger, async () => {
        const at = now();
        const known = (await sink.mirrorRows('webhooks', account.name)).find((r) => r.webhook_uuid === uuid);
        // Not mirrored yet: the service still shows a deactivated webhook by id.
        const row = known ?? webhookRow(await client.webhooks.get(uuid), account.name, at);
        await sink.upsertMirror('webhooks', account.name, [{ ...row, active: false, last_synced_at: at }]);
      });
      ctx.io.stdout.write(
        config.json
          ? `${JSON.stringify({ webhook_uuid: uuid, status: 'deactivated' })}\n`
          : `webhook ${uuid} deactivated\n`,
      );
    }),
};

interface ServeArgs {
  port: number;
  host: string;
  'tls-cert'?: string;
  'tls-key'?: string;
  'domain-verification'?: string[];
}

async function readPem(path: string, flag: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new InputError(
      'BAD_TLS_FILE',
      `${path}: ${error instanceof Error && 'code' in error ? String(error.code) : 'cannot be read'}`,
      { source: { kind: 'flag', name: flag }, value: path },
    );
  }
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

const serveCommand: CliCommand<ServeArgs> = {
  command: 'serve',
  describe:
    'receive webhook deliveries at POST <webhooks.path> (default /webhooks), plus GET /healthz and domain ' +
    'verification pages',
  usage: 'webhooks serve --port P',
  examples: [
    [
      '$0 webhooks serve --port 8443 --tls-cert cert.pem --tls-key key.pem',
      'HTTPS directly, secret from IVS_WEBHOOK_SECRET',
    ],
    ['$0 webhooks serve --port 8080 --host 127.0.0.1', 'plain HTTP behind a reverse proxy'],
  ],
  builder: (yargs) =>
    yargs
      .option('port', { type: 'number', demandOption: true, describe: 'port to listen on (0: any free port)' })
      .option('host', {
        type: 'string',
        default: '127.0.0.1',
        describe: 'address to listen on (0.0.0.0 to take deliveries from the service directly)',
      })
      .option('tls-cert', { type: 'string', describe: 'PEM certificate chain: serve HTTPS directly' })
      .option('tls-key', { type: 'string', describe: 'PEM private key of --tls-cert' })
      .option('domain-verification', {
        type: 'string',
        array: true,
        describe: 'TOKEN=VALUE, repeatable: serve VALUE at /.well-known/service-domain-verification/TOKEN',
      }),
  run: async ({ args, io, config: load, runId: runIdOf }) => {
    const config = load();
    const secrets: WebhookSecrets = { byUuid: config.webhooks.secrets, defaultSecret: config.webhooks.defaultSecret };
    if (!hasAnySecret(secrets)) {
      throw new UserError(
        'NO_WEBHOOK_SECRET',
        'no webhook secret: set IVS_WEBHOOK_SECRET, or webhooks.secret / webhooks.secrets in the config file',
      );
    }
    const certPath = args['tls-cert'];
    const keyPath = args['tls-key'];
    if ((certPath === undefined) !== (keyPath === undefined)) {
      throw new InputError('BAD_TLS', `needs ${certPath === undefined ? '--tls-cert' : '--tls-key'} too`, {
        source: { kind: 'flag', name: certPath === undefined ? '--tls-key' : '--tls-cert' },
      });
    }
    const tls =
      certPath !== undefined && keyPath !== undefined
        ? { cert: await readPem(certPath, '--tls-cert'), key: await readPem(keyPath, '--tls-key') }
        : undefined;
    const domainVerifications = parseDomainVerifications(args['domain-verification'] ?? []);

    const runId = runIdOf();
    const logger = loggerFor(config, io, runId);
    // Follow-up GETs need the service; an account without its address and token still takes deliveries.
    const accounts = selectAccounts(config, args.account).map((a) => ({
      name: a.name,
      bound: a.baseUrl && a.token ? bindAccounts(config, [a], logger)[0] : undefined,
    }));
    const clients = accounts.flatMap((a) => (a.bound ? [a.bound.client] : []));
    const sink = await openSink(config.db);
    const receiver = receiverFor(config, { sink, accounts, logger, clock: io.clock });
    let server;
    try {
      server = await startWebhookServer({
        receiver,
        port: args.port,
        host: args.host,
        ...(tls ? { tls } : {}),
        domainVerifications,
        limits: { requestTimeoutMs: config.webhooks.requestTimeoutMs, maxConnections: config.webhooks.maxConnections },
      });
    } catch (error) {
      for (const c of clients) c.close();
      await sink.close();
      throw new UserError(
        'LISTEN_FAILED',
        `cannot listen on ${args.host}:${args.port}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const names = accounts.map((a) => a.name).join(', ');
    const info = {
      url: `${server.url}${config.webhooks.path}`,
      accounts: accounts.map((a) => a.name),
      followUpGets: clients.length > 0,
    };
    io.stdout.write(
      config.json
        ? `${JSON.stringify(info)}\n`
        : `webhook receiver listening on ${info.url} (account ${names}); stop with Ctrl-C\n`,
    );
    await untilAborted(io.signal);
    await server.close();
    await receiver.drain();
    for (const c of clients) c.close();
    await sink.close();
    logger.info({}, 'webhook receiver stopped');
    return EXIT.ok;
  },
};

export const webhooksCommand: CliCommand = {
  command: 'webhooks',
  describe:
    'receive deliveries (serve), test the receiver (send-test), and manage the webhooks of the account ' +
    '(create, list, show, deactivate)',
  uses: USES.crawl,
  examples: [
    ['$0 webhooks serve --port 8080', 'take deliveries at POST /webhooks'],
    ['$0 webhooks list', 'the active webhooks, as a table'],
  ],
  subcommands: [
    serveCommand,
    sendTestCommand,
    createCommand,
    listCommand,
    showCommand,
    deactivateCommand,
  ] as ReadonlyArray<CliCommand<never>>,
};
