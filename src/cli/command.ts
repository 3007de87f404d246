import type { Argv } from 'yargs';
import type { Config } from '../config/config.js';
import type { ConfigFlags } from '../config/load-config.js';
import type { CliIo } from './runtime.js';

/**
 * Global options every command accepts (design.md "Command line"), and the command options the config loader resolves.
 */
export interface GlobalArgs extends ConfigFlags {
  account?: string | undefined;
}

export interface CommandContext<A> {
  args: A & GlobalArgs;
  io: CliIo;
  /** Loads the configuration from flags, env and file (once per run). */
  config: () => Config;
  /** The id of this command's run (the same on every call): on its log lines, in sync_runs, and on its final error. */
  runId: () => string;
  /** The daemon's id, for its own records (each of its runs has its own). */
  daemonId: () => string;
}

/** The global options (design.md "Command line"), as the parser names them. */
export const GLOBAL_OPTIONS = [
  'base-url',
  'token',
  'api-version',
  'db',
  'config',
  'rate',
  'account',
  'json',
  'log-level',
  'verbose',
] as const;
export type GlobalOption = (typeof GLOBAL_OPTIONS)[number];

/**
 * A command as data: yargs' name, description and options, and a `run` that
 * returns the exit code. Only cli/main.ts turns an exit code into process.exit.
 */
export interface CliCommand<A = Record<string, unknown>> {
  command: string | readonly string[];
  describe: string;
  builder?: (yargs: Argv<GlobalArgs>) => Argv<GlobalArgs>;
  run?: (ctx: CommandContext<A>) => Promise<number>;
  /** Sub-commands (webhooks create|list|...). */
  subcommands?: ReadonlyArray<CliCommand<never>>;
  /**
   * The global options the command reads: its --help lists only these (the
   * others are still accepted, so one set of flags or env serves every command).
   * @default the parent command's, else all
   */
  uses?: readonly GlobalOption[];
  /**
   * The usage line of its --help, with the options it requires, e.g. `backfill --from T --to T`. @default the command
   */
  usage?: string;
  /** One or two command lines with what they do, shown under "Examples" in its --help. */
  examples?: ReadonlyArray<readonly [command: string, does: string]>;
  /**
   * What the first SIGINT/SIGTERM makes the command do, as its one notice says (the second stops at once).
   * @default the parent command's, else STOPPING
   */
  onStop?: string;
}

/** What the first signal does to a command that names nothing else: it ends what it is doing and exits. */
export const STOPPING = 'stopping';

/** What it does to a crawl: the pages fetched commit, and the run ends interrupted (exit 3), to be resumed. */
export const FINISHING_PAGES = 'finishing the pages in flight';

/**
 * Exit codes (design.md): 0 success, 1 failure, 2 usage; 3 an interrupted run that can be resumed; 4 `verify` found
 * drift.
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, interrupted: 3, drift: 4 } as const;
