import { describe, expect, it } from 'vitest';
import { allCommands } from '../../src/cli/commands/index.js';
import { GLOBAL_OPTIONS, type CliCommand, type GlobalOption } from '../../src/cli/command.js';
import { runIvsync } from '../helpers/run-cli.js';

const COMMANDS = await allCommands();

interface Leaf {
  path: string[];
  uses: readonly GlobalOption[];
}

/** Every command a user can run, with the global options it declares it reads (inherited from its parent). */
function leaves(commands: ReadonlyArray<CliCommand<never>>, parent: Leaf = { path: [], uses: GLOBAL_OPTIONS }): Leaf[] {
  return commands.flatMap((c) => {
    const name = String(c.command).split(' ')[0]!;
    const here = { path: [...parent.path, name], uses: c.uses ?? parent.uses };
    return c.subcommands ? leaves(c.subcommands, here) : [here];
  });
}

/** The options its --help lists. */
function listed(help: string): string[] {
  return [...help.matchAll(/^ {2}--([a-z-]+)/gm)].map((m) => m[1]!);
}

async function help(path: readonly string[]): Promise<string> {
  const r = await runIvsync([...path, '--help']);
  expect(r.code).toBe(0);
  return r.stdout;
}

describe('--help of each command', () => {
  it.each(leaves(COMMANDS).map((l) => [l.path.join(' '), l] as const))(
    '%s: lists the global options it reads and no other, and examples',
    async (_name, leaf) => {
      const text = await help(leaf.path);
      const options = listed(text);
      for (const option of GLOBAL_OPTIONS)
        expect([option, options.includes(option)]).toEqual([option, leaf.uses.includes(option)]);
      expect(options).not.toContain('version');
      expect(text).toMatch(new RegExp(`^ivsync ${leaf.path.join(' ')}`));
      expect(text).toMatch(/\nExamples:\n {2}ivsync /);
    },
  );

  it.each([
    [['export'], ['schedule', 'token', 'base-url', 'rate', 'resources'], 'ivsync export --to duckdb:PATH|parquet:DIR'],
    [['status'], ['token', 'base-url', 'rate', 'api-version', 'log-level', 'account'], 'ivsync status [options]'],
    [['health'], ['db', 'schedule'], 'ivsync health [options]'],
    [['reset'], ['token', 'base-url', 'rate', 'schedule'], 'ivsync reset [options]'],
    [['simulate'], ['db', 'base-url', 'api-version', 'config'], 'ivsync simulate --port P'],
    [['backfill'], ['schedule', 'port'], 'ivsync backfill --from T --to T'],
    [['webhooks', 'serve'], ['schedule'], 'ivsync webhooks serve --port P'],
    [['voucher', 'create'], ['db', 'schedule'], 'ivsync voucher create --user-id ID --email EMAIL'],
  ])('%j: no %j, and its required options in the usage line', async (path, absent, usage) => {
    const text = await help(path);
    for (const option of absent) expect(listed(text)).not.toContain(option);
    expect(text.split('\n')[0]).toContain(usage);
  });

  it("says simulate's --rate is the simulator's own limit, not ivsync's", async () => {
    const text = await help(['simulate']);
    expect(text).toMatch(/--rate\s+the simulator's own rate limit/);
    expect(text).not.toMatch(/requests per second for this token/);
  });

  it('still accepts a global option a command does not read: one set of flags serves every command', async () => {
    const r = await runIvsync(['status', '--rate', '5', '--help']);
    expect(r.code).toBe(0);
  });
});
