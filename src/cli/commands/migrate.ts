import { EXIT, type CliCommand } from '../command.js';
import { openTarget } from '../runtime.js';

export const migrateCommand: CliCommand = {
  command: 'migrate',
  describe: 'apply the migrations to the target (every other command does it too)',
  uses: ['db', 'config', 'json', 'verbose'],
  examples: [['$0 migrate --db postgres://ivsync@db.internal/analytics', 'create or upgrade the tables of a Postgres target']],
  run: async ({ io, config: load }) => {
    const config = load();
    const sink = await openTarget(config);
    await sink.close();
    io.stdout.write(config.json ? `${JSON.stringify({ migrated: true, dialect: sink.dialect })}\n` : `target is up to date (${sink.dialect})\n`);
    return EXIT.ok;
  },
};
