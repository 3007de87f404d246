import type { CliCommand } from '../command.js';
import { backfillCommand } from './backfill.js';
import { daemonCommand } from './daemon.js';
import { domainsCommand } from './domains.js';
import { exportCommand } from './export.js';
import { healthCommand } from './health.js';
import { initCommand } from './init.js';
import { migrateCommand } from './migrate.js';
import { resetCommand } from './reset.js';
import { simulateCommand } from './simulate.js';
import { statusCommand } from './status.js';
import { syncCommand } from './sync.js';
import { uiCommand } from './ui.js';
import { verifyCommand } from './verify.js';
import { webhooksCommand } from './webhooks.js';
import { voucherCommand } from './voucher.js';

/** Every command of the CLI, in the order --help lists them. */
export const COMMANDS: ReadonlyArray<CliCommand<never>> = [
  initCommand,
  backfillCommand,
  syncCommand,
  daemonCommand,
  statusCommand,
  uiCommand,
  verifyCommand,
  resetCommand,
  healthCommand,
  migrateCommand,
  webhooksCommand,
  domainsCommand,
  exportCommand,
  voucherCommand,
  simulateCommand,
] as ReadonlyArray<CliCommand<never>>;
