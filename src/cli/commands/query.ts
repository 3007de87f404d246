import { openReadOnlyQuery } from '../../store/query/open-read-only-query.js';
import { EXIT, type CliCommand } from '../command.js';
import { QUERY_FORMATS, renderQueryResult, type QueryFormat } from '../query-output.js';
import { USES } from './option-sets.js';

interface QueryArgs {
  sql: string;
  format?: QueryFormat;
}

export const queryCommand: CliCommand<QueryArgs> = {
  command: 'query <sql>',
  describe: 'run one read-only SQL statement on the target or an export file, without a SQL client',
  usage: 'query "SQL"',
  uses: USES.target,
  examples: [
    ['$0 query "SELECT result_display, count(*) AS n FROM authentications GROUP BY 1"', 'a table on the terminal'],
    ['$0 query --db duckdb:exports/ivsync.duckdb --format csv "SELECT * FROM v_daily_results"', 'an export, as CSV'],
    ['$0 query --db parquet:exports/parquet "SELECT count(*) FROM fingerprints"', 'Parquet files, one table per file'],
  ],
  builder: (yargs) =>
    yargs
      .positional('sql', {
        type: 'string',
        demandOption: true,
        describe: 'one statement that reads: SELECT, WITH, EXPLAIN',
      })
      .option('format', {
        type: 'string',
        choices: [...QUERY_FORMATS],
        describe: 'output: an aligned table, CSV with a header, or a JSON array (default table; json with --json)',
      }),
  run: async ({ args, io, config: load }) => {
    const config = load();
    const format: QueryFormat = args.format ?? (config.json ? 'json' : 'table');
    const query = await openReadOnlyQuery(config.db);
    try {
      io.stdout.write(renderQueryResult(await query.run(args.sql), format));
    } finally {
      await query.close();
    }
    return EXIT.ok;
  },
};
