import yargs, { type Argv } from 'yargs';
import { LOG_LEVELS, type Config } from '../config/config.js';
import { DEFAULTS } from '../config/defaults.js';
import { API_VERSIONS, DEFAULT_CONFIG_FILES } from '../config/constants.js';
import { InputError } from '../errors.js';
import { commandsFor } from './commands/index.js';
import { EXIT, GLOBAL_OPTIONS, STOPPING, type CliCommand, type GlobalArgs, type GlobalOption } from './command.js';
import { configFlags } from './config-flags.js';
import { explainUsage, usageContext } from './did-you-mean.js';
import { renderError, renderSignalNotice, reportError, USAGE, wantsJson } from './error-output.js';
import { newRunId } from '../crawl/runs/run-recorder.js';
import type { CliIo } from './runtime.js';

const VERSION = '0.1.0';

function globalOptions(y: Argv): Argv<GlobalArgs> {
  return y
    .option('base-url', { type: 'string', describe: 'service root, e.g. https://api.example.com [env IVS_BASE_URL]' })
    .option('token', { type: 'string', describe: 'API token; never printed or stored [env IVS_API_TOKEN]' })
    .option('api-version', {
      type: 'string',
      choices: [...API_VERSIONS],
      describe: `service interface [env IVS_API_VERSION] (default ${DEFAULTS.apiVersion})`,
    })
    .option('db', {
      type: 'string',
      describe: `target: sqlite:PATH, duckdb:PATH or postgres://... [env IVS_DB] (default ${DEFAULTS.db})`,
    })
    .option('config', {
      type: 'string',
      describe:
        `config file, JSON or YAML [env IVS_CONFIG] (default the first of ${DEFAULT_CONFIG_FILES.join(', ')} ` +
        `that exists)`,
    })
    .option('rate', {
      type: 'number',
      describe: `requests per second for this token [env IVS_RATE] (default ${DEFAULTS.rate})`,
    })
    .option('account', { type: 'string', describe: 'only this configured account (default: all)' })
    .option('json', { type: 'boolean', describe: 'machine-readable output, errors included' })
    .option('log-level', {
      type: 'string',
      describe: `${LOG_LEVELS.join(', ')} [env IVS_LOG_LEVEL] (default ${DEFAULTS.logLevel})`,
    })
    .option('verbose', {
      type: 'boolean',
      describe: 'debug logs whatever --log-level or the config say, and stacks on errors',
    });
}

/** A command's help: its usage line with what it requires, only the global options it reads, its examples. */
function withHelp(
  y: Argv<GlobalArgs>,
  c: CliCommand<Record<string, unknown>>,
  path: string,
  uses: readonly GlobalOption[],
): Argv<GlobalArgs> {
  let built = y.usage(`$0 ${c.usage ?? path}${c.subcommands ? '' : ' [options]'}\n\n${c.describe}`);
  for (const option of GLOBAL_OPTIONS) if (!uses.includes(option)) built = built.hide(option);
  for (const [line, does] of c.examples ?? []) built = built.example(line, does);
  return built.hide('version');
}

/** The ids the command's records carry, shared with the final error and the signal notice. */
interface Invocation {
  ids: { run?: string; daemon?: string };
  setExit: (code: number) => void;
  /** What the first signal does to the command running (CliCommand.onStop); STOPPING before one runs. */
  onStop: string;
}

function register(
  y: Argv<GlobalArgs>,
  command: CliCommand<never>,
  io: CliIo,
  invocation: Invocation,
  parent?: { path: string; uses: readonly GlobalOption[]; onStop: string },
): Argv<GlobalArgs> {
  const c = command as CliCommand<Record<string, unknown>>;
  const name = (Array.isArray(c.command) ? c.command[0] : c.command) as string;
  const path = parent ? `${parent.path} ${name}` : name;
  const uses = c.uses ?? parent?.uses ?? GLOBAL_OPTIONS;
  const onStop = c.onStop ?? parent?.onStop ?? STOPPING;
  return y.command({
    command: c.command as string | string[],
    describe: c.describe,
    builder: (sub: Argv<GlobalArgs>) => {
      let built = withHelp(c.builder ? c.builder(sub) : sub, c, path, uses);
      for (const child of c.subcommands ?? []) built = register(built, child, io, invocation, { path, uses, onStop });
      return c.subcommands ? built.demandCommand(1, `${String(c.command)}: name a sub-command`) : built;
    },
    handler: async (args: Record<string, unknown>) => {
      if (!c.run) return;
      invocation.onStop = onStop;
      // The loader (zod, yaml) only for a command that runs.
      const { loadConfig } = await import('../config/load-config.js');
      let loaded: Config | undefined;
      const config = () =>
        (loaded ??= loadConfig({ flags: configFlags(args as GlobalArgs), env: io.env, clock: io.clock }));
      const { ids } = invocation;
      const runId = () => (ids.run ??= newRunId());
      const daemonId = () => (ids.daemon ??= newRunId());
      invocation.setExit(
        await c.run({ args: args as GlobalArgs & Record<string, unknown>, io, config, runId, daemonId }),
      );
    },
  } as never);
}

/** The part of yargs' own state that formats a command's help. */
interface UsageInternals {
  getInternalMethods: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } | undefined };
}

const hasInternals = (parser: object): parser is UsageInternals =>
  typeof Reflect.get(parser, 'getInternalMethods') === 'function';

/**
 * yargs formats a command's whole help (cliui's columns, a string width per word) when it calls the
 * command's handler, and keeps it in case the handler, once it has awaited, asks for it (`showHelp`).
 * ivsync's handlers never do: their mistakes are thrown and reported as one line (`fail` above), and
 * `--help` is answered before any handler runs. The formatting cost every command 35 ms of its start-up
 * on a machine where `node -e 0` takes 80 ms. Left as it is if yargs no longer has that method.
 */
function skipEagerHelp(parser: object): void {
  if (!hasInternals(parser)) return;
  const usage = parser.getInternalMethods().getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
}

/**
 * Runs the CLI on `argv` (without node and script) and returns the exit code.
 * Tests drive it through this real parser; cli/main.ts adds process.exit.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const verbose = argv.includes('--verbose');
  let parser = globalOptions(yargs([...argv]))
    .scriptName('ivsync')
    .version(VERSION)
    .strict()
    .recommendCommands()
    .demandCommand(1, 'name a command (see --help)')
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .exitProcess(false)
    .fail((msg, err, usage) => {
      // A usage mistake the parser found: thrown so that no handler runs after it.
      if (err) throw err;
      // yargs words some mistakes over several lines ("Invalid values:" then the argument): one line keeps them all.
      throw new InputError(USAGE, explainUsage(msg.replace(/\s*\n\s*/g, ' '), usageContext(usage, argv)));
    })
    .epilogue(
      'Exit codes: 0 success, 1 failure, 2 usage error, 3 interrupted (run the same command again to resume), ' +
        '4 verify found drift.',
    );
  const invocation: Invocation = { ids: {}, setExit: (code) => (exitCode = code), onStop: STOPPING };
  for (const command of await commandsFor(argv)) parser = register(parser, command, io, invocation);
  skipEagerHelp(parser);
  // Off a terminal every line on stderr is JSON, the final error and the signal notice included.
  const record = () =>
    wantsJson(argv) || !io.stderr.isTTY ? { time: new Date(io.clock()).toISOString(), ...invocation.ids } : undefined;
  const onSignal = () => {
    const signal = io.signalName?.();
    if (signal !== undefined) io.stderr.write(renderSignalNotice(signal, record(), invocation.onStop));
  };
  io.signal.addEventListener('abort', onSignal, { once: true });
  let output = '';
  try {
    await parser.parseAsync([...argv], {}, (_err, _argv, text) => {
      output = text;
    });
  } catch (error) {
    const report = reportError(error, verbose);
    io.stderr.write(renderError(report, record()));
    return report.exit;
  } finally {
    io.signal.removeEventListener('abort', onSignal);
  }
  if (output) io.stdout.write(`${output}\n`);
  return exitCode;
}
