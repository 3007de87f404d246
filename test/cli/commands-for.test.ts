import { describe, expect, it } from 'vitest';
import { allCommands, commandsFor } from '../../src/cli/commands/index.js';

const ALL = (await allCommands()).map((c) => String(c.command));

describe('commandsFor: only the command the line names is loaded', () => {
  it.each([
    [['--version'], []],
    [['status'], ['status']],
    [['--db', 'sqlite:status', 'sync', '--json'], ['sync']],
    [['--json', '--verbose', 'status'], ['status']],
    [['--account', 'status', 'backfill', '--from', '0'], ['backfill']],
    [['--db=sqlite:x', 'export', '--to', 'parquet:out'], ['export']],
    [['webhooks', 'list'], ['webhooks']],
    [['--help'], ALL],
    [['stat'], ALL],
    [[], ALL],
    [['--version', 'status'], ['status']],
  ])('%j loads %j', async (argv, names) => {
    expect((await commandsFor(argv)).map((c) => String(c.command))).toEqual(names);
  });
});
