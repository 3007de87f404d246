import { openSink } from '../../store/open-sink.js';
import { EXIT, type CliCommand } from '../command.js';

interface MigrateArgs {
  force?: boolean;
}

export const migrateCommand: CliCommand<MigrateArgs> = {
  command: 'migrate',
  describe: 'apply the migrations to the target (every other command does it too)',
  uses: ['db', 'config', 'json', 'verbose'],
  examples: [
    ['$0 migrate --db postgres://ivsync@db.internal/analytics', 'create or upgrade the tables of a Postgres target'],
    ['$0 migrate --db duckdb:notes.duckdb --force', "add ivsync's tables to a DuckDB file holding tables of its own"],
  ],
  builder: (yargs) =>
    yargs.option('force', {
      type: 'boolean',
      describe:
        "add ivsync's tables to a SQLite or DuckDB file that holds other tables " +
        '(refused without it; an export is never written)',
    }),
  run: async ({ args, io, config: load }) => {
    const config = load();
    const sink = await openSink(config.db, { force: args.force === true });
    await sink.close();
    io.stdout.write(
      config.json
        ? `${JSON.stringify({ migrated: true, dialect: sink.dialect })}\n`
        : `target is up to date (${sink.dialect})\n`,
    );
    return EXIT.ok;
  },
};
