import type { CliCommand } from '../command.js';

type Loader = () => Promise<CliCommand<never>>;

/**
 * Every command of the CLI, in the order --help lists them, each loaded only
 * when needed: a command's module brings in what it runs (the HTTP client, a
 * target's driver, progress bars), and `ivsync --version` or `status` need
 * none of the others' (start-up is most of what a short command costs).
 */
const LOADERS: ReadonlyArray<readonly [name: string, load: Loader]> = [
  ['init', async () => (await import('./init.js')).initCommand as CliCommand<never>],
  ['backfill', async () => (await import('./backfill.js')).backfillCommand as CliCommand<never>],
  ['sync', async () => (await import('./sync.js')).syncCommand as CliCommand<never>],
  ['daemon', async () => (await import('./daemon.js')).daemonCommand as CliCommand<never>],
  ['status', async () => (await import('./status.js')).statusCommand as CliCommand<never>],
  ['query', async () => (await import('./query.js')).queryCommand as CliCommand<never>],
  ['ui', async () => (await import('./ui.js')).uiCommand as CliCommand<never>],
  ['verify', async () => (await import('./verify.js')).verifyCommand as CliCommand<never>],
  ['reset', async () => (await import('./reset.js')).resetCommand as CliCommand<never>],
  ['health', async () => (await import('./health.js')).healthCommand as CliCommand<never>],
  ['migrate', async () => (await import('./migrate.js')).migrateCommand as CliCommand<never>],
  ['webhooks', async () => (await import('./webhooks.js')).webhooksCommand as CliCommand<never>],
  ['domains', async () => (await import('./domains.js')).domainsCommand as CliCommand<never>],
  ['export', async () => (await import('./export.js')).exportCommand as CliCommand<never>],
  ['voucher', async () => (await import('./voucher.js')).voucherCommand as CliCommand<never>],
  ['simulate', async () => (await import('./simulate.js')).simulateCommand as CliCommand<never>],
];

/** Global options that take a value (the others, --json and --verbose, are flags). */
const FLAGS = new Set(['--json', '--verbose', '--help', '--version', '-h']);

/**
 * The commands `argv` needs: the one it names (its first word that is not an
 * option or an option's value); none for a bare `--version`; all of them
 * otherwise (the top-level help lists them, a mistyped name is matched
 * against them).
 */
export async function commandsFor(argv: readonly string[]): Promise<Array<CliCommand<never>>> {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    if (word.startsWith('-')) {
      if (!word.includes('=') && !FLAGS.has(word) && !word.startsWith('--no-')) i++;
      continue;
    }
    const named = LOADERS.find(([name]) => name === word);
    if (named) return [await named[1]()];
    break;
  }
  if (argv.length === 1 && argv[0] === '--version') return [];
  return allCommands();
}

/** Every command, loaded, in the order --help lists them. */
export function allCommands(): Promise<Array<CliCommand<never>>> {
  return Promise.all(LOADERS.map(([, load]) => load()));
}
