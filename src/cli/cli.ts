import yargs, { type Argv } from 'yargs';
import type { Config } from '../config/config.js';
import { loadConfig } from '../config/load-config.js';
import { InterruptedError, IvsyncError } from '../errors.js';

/** A usage error found by the parser: thrown so that no handler runs after it. */
class UsageError extends Error {}
import { COMMANDS } from './commands/index.js';
import { EXIT, type CliCommand, type GlobalArgs } from './command.js';
import type { CliIo } from './runtime.js';

const VERSION = '0.1.0';

function globalOptions(y: Argv): Argv<GlobalArgs> {
  return y
    .option('base-url', { type: 'string', describe: 'service root, e.g. https://api.example.com [env IVS_BASE_URL]' })
    .option('token', { type: 'string', describe: 'API token; never printed or stored [env IVS_API_TOKEN]' })
    .option('api-version', { type: 'string', choices: ['1.4', '2'], describe: 'service interface [env IVS_API_VERSION] (default 1.4)' })
    .option('db', { type: 'string', describe: 'target: sqlite:PATH, duckdb:PATH or postgres://... [env IVS_DB] (default sqlite:./data/ivsync.sqlite)' })
    .option('config', { type: 'string', describe: 'config file [env IVS_CONFIG] (default ./config/ivsync.json if present)' })
    .option('rate', { type: 'number', describe: 'requests per second for this token [env IVS_RATE] (default 10)' })
    .option('account', { type: 'string', describe: 'only this configured account (default: all)' })
    .option('json', { type: 'boolean', describe: 'machine-readable output' })
    .option('verbose', { type: 'boolean', describe: 'debug logs, and stacks on errors' }) as unknown as Argv<GlobalArgs>;
}

/** The one line a user sees for an error; stacks only with --verbose and only for bugs. */
function describeError(error: unknown, verbose: boolean): string {
  if (error instanceof IvsyncError) return `ivsync: ${error.message}`;
  const text = error instanceof Error ? error.message : String(error);
  return verbose && error instanceof Error && error.stack ? `ivsync: ${error.stack}` : `ivsync: ${text}`;
}

function register(y: Argv<GlobalArgs>, command: CliCommand<never>, io: CliIo, setExit: (code: number) => void): Argv<GlobalArgs> {
  const c = command as CliCommand<Record<string, unknown>>;
  return y.command({
    command: c.command as string | string[],
    describe: c.describe,
    builder: (sub: Argv<GlobalArgs>) => {
      let built = c.builder ? c.builder(sub) : sub;
      for (const child of c.subcommands ?? []) built = register(built, child, io, setExit);
      return c.subcommands ? built.demandCommand(1, `${String(c.command)}: name a sub-command`) : built;
    },
    handler: async (args: Record<string, unknown>) => {
      if (!c.run) return;
      const g = args as GlobalArgs;
      let loaded: Config | undefined;
      const config = () =>
        (loaded ??= loadConfig({
          flags: {
            baseUrl: g.baseUrl,
            token: g.token,
            apiVersion: g.apiVersion,
            db: g.db,
            config: g.config,
            rate: g.rate,
            json: g.json,
            verbose: g.verbose,
          },
          env: io.env,
        }));
      setExit(await c.run({ args: args as GlobalArgs & Record<string, unknown>, io, config }));
    },
  } as never);
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
    .fail((msg, err) => {
      throw err ?? new UsageError(msg);
    })
    .epilogue('Exit codes: 0 success, 1 failure, 2 usage error, 3 interrupted (run the same command again to resume).');
  for (const command of COMMANDS) parser = register(parser, command, io, (code) => (exitCode = code));
  let output = '';
  try {
    await parser.parseAsync([...argv], {}, (_err, _argv, text) => {
      output = text;
    });
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`ivsync: ${error.message}\n(see ivsync --help, or ivsync COMMAND --help)\n`);
      return EXIT.usage;
    }
    if (error instanceof InterruptedError) {
      io.stderr.write(`ivsync: ${error.message}\n`);
      return EXIT.interrupted;
    }
    io.stderr.write(`${describeError(error, verbose)}\n`);
    return EXIT.failure;
  }
  if (output) io.stdout.write(`${output}\n`);
  return exitCode;
}
