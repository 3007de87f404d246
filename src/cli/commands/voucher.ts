import { ApiError, BadRequestError } from '../../api/errors.js';
import type { LoginVoucher, VoucherRequest } from '../../api/service-client.js';
import { InputError, UserError } from '../../errors.js';
import { USES } from './option-sets.js';
import { EXIT, type CliCommand } from '../command.js';
import { bindAccounts } from '../../app/bind-accounts.js';
import { loggerFor, selectAccounts } from '../runtime.js';

interface VoucherCreateArgs {
  userId: string;
  email: string;
  firstName?: string;
  lastName?: string;
}

/**
 * The service does not document what 400 and 409 mean on this operation;
 * these sentences say what the user can check, and keep the service's own
 * explanation.
 */
export function voucherFailure(error: unknown, request: VoucherRequest): unknown {
  if (error instanceof BadRequestError) {
    return new UserError(
      'VOUCHER_REJECTED',
      `the service refused a login voucher for user '${request.userId}' (400: ${error.serviceMessage}); check ` +
        `--user-id and --email`,
    );
  }
  if (error instanceof ApiError && error.status === 409) {
    const said = /HTTP 409: (.*)$/.exec(error.message)?.[1] ?? 'conflict';
    return new UserError(
      'VOUCHER_CONFLICT',
      `the service will not issue another login voucher for user '${request.userId}' (409: ${said}); the user ` +
        `has one already`,
    );
  }
  return error;
}

/** What stdout gets: the only place the voucher is revealed. */
export function renderVoucher(voucher: LoginVoucher, json: boolean): string {
  const value = voucher.loginVoucher.reveal();
  return json
    ? `${JSON.stringify({ username: voucher.username, login_voucher: value })}\n`
    : `username: ${voucher.username}\nlogin voucher: ${value}\n`;
}

const voucherCreateCommand: CliCommand<VoucherCreateArgs> = {
  command: 'create',
  usage: 'voucher create --user-id ID --email EMAIL',
  examples: [
    ['$0 voucher create --user-id u-1001 --email ann@example.com', 'a login voucher for one user, printed once'],
  ],
  describe:
    'create a login voucher for a user of the mobile app (API version 2 only). The voucher signs the user in ' +
    'like a password: it is printed to stdout only, never logged or stored',
  builder: (yargs) =>
    yargs
      .option('user-id', {
        type: 'string',
        demandOption: true,
        describe: "your own unique id for the user (the service's unique_user_id)",
      })
      .option('email', { type: 'string', demandOption: true, describe: "the user's email address" })
      .option('first-name', { type: 'string', describe: "the user's first name" })
      .option('last-name', { type: 'string', describe: "the user's last name" }),
  run: async ({ args, io, config: load, runId }) => {
    // yargs runs the handler even after a failed validation (the parser's fail
    // callback only records it); nothing must be sent for a voucher without a user.
    if (typeof args.userId !== 'string' || typeof args.email !== 'string') return EXIT.usage;
    const config = load();
    const selected = selectAccounts(config, args.account);
    if (selected.length > 1) {
      throw new InputError(
        'ONE_ACCOUNT',
        `voucher create works on one account: name it with --account (configured: ` +
          `${selected.map((a) => a.name).join(', ')})`,
      );
    }
    const account = selected[0]!;
    if (account.apiVersion !== '2') {
      throw new UserError(
        'V2_ONLY',
        `login vouchers exist only in API version 2, and account '${account.name}' uses ${account.apiVersion}: ` +
          `pass --api-version 2 (or set it in the config)`,
      );
    }
    const logger = loggerFor(config, io, runId());
    const [bound] = bindAccounts(config, [account], logger);
    const request: VoucherRequest = {
      userId: args.userId,
      email: args.email,
      ...(args.firstName !== undefined ? { firstName: args.firstName } : {}),
      ...(args.lastName !== undefined ? { lastName: args.lastName } : {}),
    };
    let voucher: LoginVoucher;
    try {
      voucher = await bound!.client.createVoucher(request);
    } catch (error) {
      throw voucherFailure(error, request);
    } finally {
      bound!.client.close();
    }
    // The log line says a voucher was issued, never what it is.
    logger.info({ account: account.name, username: voucher.username }, 'login voucher created');
    io.stdout.write(renderVoucher(voucher, config.json));
    return EXIT.ok;
  },
};

export const voucherCommand: CliCommand = {
  command: 'voucher',
  describe: 'login vouchers for the mobile app (API version 2)',
  uses: USES.service,
  examples: [
    ['$0 voucher create --user-id u-1001 --email ann@example.com --api-version 2', 'a login voucher for one user'],
  ],
  subcommands: [voucherCreateCommand as CliCommand<never>],
};
