import type { Config } from '../../config/config.js';
import { UserError } from '../../errors.js';
import { sampleDelivery, SAMPLE_WEBHOOK_UUID } from '../../webhooks/sample-delivery.js';
import { signDelivery } from '../../webhooks/sign-delivery.js';
import { SIGNATURE_HEADER } from '../../webhooks/verify-signature.js';
import { expectedSecret } from '../../webhooks/webhook-secrets.js';
import { EXIT, type CliCommand } from '../command.js';

interface SendTestArgs {
  url?: string;
  port?: number;
  'webhook-uuid'?: string;
}

/** The port `webhooks serve` and the daemon are shown with in the docs (behind a reverse proxy, in Docker). */
const DEFAULT_PORT = 8080;

/**
 * The uuid to sign for: the one given, else the only one with its own secret,
 * else the first an account owns, else a sample.
 */
function webhookUuidFor(config: Config, given: string | undefined): string {
  if (given !== undefined) return given;
  const keyed = Object.keys(config.webhooks.secrets);
  if (config.webhooks.defaultSecret === undefined && keyed.length > 0) return keyed[0]!;
  return config.accounts.flatMap((a) => a.webhooks)[0] ?? SAMPLE_WEBHOOK_UUID;
}

export const sendTestCommand: CliCommand<SendTestArgs> = {
  command: 'send-test',
  describe: 'post a signed test delivery (no items) to the receiver, as the service would, and say how it answered',
  usage: 'webhooks send-test [--url URL]',
  uses: ['config', 'json', 'log-level', 'verbose'],
  examples: [
    ['$0 webhooks send-test', `to a receiver on this machine: http://127.0.0.1:${DEFAULT_PORT}/webhooks`],
    ['$0 webhooks send-test --url https://hooks.example.com/webhooks', 'through the proxy the service delivers to'],
  ],
  builder: (yargs) =>
    yargs
      .option('url', {
        type: 'string',
        describe: `the receiver's URL (default http://127.0.0.1:PORT plus webhooks.path)`,
      })
      .option('port', {
        type: 'number',
        default: DEFAULT_PORT,
        describe: 'the port of webhooks serve (or the daemon) on this machine, when no --url',
      })
      .option('webhook-uuid', {
        type: 'string',
        describe: 'the webhook to sign for, with its own secret if it has one (default: a sample uuid)',
      }),
  run: async ({ args, io, config: load }) => {
    const config = load();
    const url = args.url ?? `http://127.0.0.1:${args.port ?? DEFAULT_PORT}${config.webhooks.path}`;
    const uuid = webhookUuidFor(config, args['webhook-uuid']);
    const secrets = { byUuid: config.webhooks.secrets, defaultSecret: config.webhooks.defaultSecret };
    const secret = expectedSecret(secrets, uuid);
    if (secret === undefined) {
      const where = 'set IVS_WEBHOOK_SECRET, or webhooks.secret / webhooks.secrets in the config file';
      throw new UserError('NO_WEBHOOK_SECRET', `no webhook secret to sign with: ${where}`);
    }
    const body = sampleDelivery(uuid, new Date(io.clock()).toISOString());
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signDelivery(secret, body) },
        body,
        signal: AbortSignal.any([io.signal, AbortSignal.timeout(config.http.timeoutMs)]),
      });
    } catch (error) {
      // fetch says only `fetch failed`; its cause names the refused connection or the unknown host.
      const reason = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      const cause = reason instanceof Error ? reason.message : String(reason);
      const hint = '(is webhooks serve or the daemon running there?)';
      throw new UserError('RECEIVER_UNREACHABLE', `cannot reach the receiver at ${url}: ${cause} ${hint}`);
    }
    const text = await response.text();
    if (response.status !== 200) {
      throw new UserError(
        'DELIVERY_REFUSED',
        `the receiver at ${url} answered ${response.status}: ${text.slice(0, 200)}`,
      );
    }
    const answer = JSON.parse(text) as unknown;
    io.stdout.write(
      config.json
        ? `${JSON.stringify({ url, webhookUuid: uuid, status: response.status, answer })}\n`
        : `delivered a signed test delivery to ${url} (webhook ${uuid}): ${response.status} ${text}\n`,
    );
    return EXIT.ok;
  },
};
