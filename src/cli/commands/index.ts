import type { CliCommand } from '../command.js';
import { backfillCommand } from './backfill.js';
import { healthCommand } from './health.js';
import { migrateCommand } from './migrate.js';
import { simulateCommand } from './simulate.js';
import { statusCommand } from './status.js';
import { syncCommand } from './sync.js';

/** Every command of the CLI, in the order --help lists them. */
export const COMMANDS: ReadonlyArray<CliCommand<never>> = [
  backfillCommand,
  syncCommand,
  statusCommand,
  healthCommand,
  migrateCommand,
  simulateCommand,
] as ReadonlyArray<CliCommand<never>>;
