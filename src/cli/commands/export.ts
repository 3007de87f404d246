import { resolve } from 'node:path';
import { UserError } from '../../errors.js';
import { beforeLoadingDuckdb } from '../../store/drivers/duckdb/duckdb-allocator.js';
import type { ExportedRelation } from '../../store/export/export.js';
import { parseExportTarget } from '../../store/export/export-target.js';
import { openSink } from '../../store/open-sink.js';
import { parseTarget } from '../../store/target/parse-target.js';
import { USES } from './option-sets.js';
import { EXIT, type CliCommand } from '../command.js';
import { loggerFor } from '../runtime.js';
import { renderTable } from '../text-table.js';

interface ExportArgs {
  to: string;
  force?: boolean;
}

export const exportCommand: CliCommand<ExportArgs> = {
  command: 'export',
  onStop: 'stopping the export; what it was writing to is left as it was',
  describe: 'analyst copies of the target (--db): every table and view into one DuckDB file, or one Parquet file each',
  uses: USES.target,
  usage: 'export --to duckdb:PATH|parquet:DIR',
  examples: [
    ['$0 export --to duckdb:./analytics.duckdb', 'one DuckDB file with every table and view'],
    ['$0 export --to parquet:./export --force', 'one Parquet file per table and view, replacing an earlier export'],
  ],
  builder: (yargs) =>
    yargs
      .option('to', {
        type: 'string',
        demandOption: true,
        describe: 'duckdb:PATH (one file, views included) or parquet:DIR (one <table>.parquet per table and view)',
      })
      .option('force', { type: 'boolean', describe: 'replace an export that exists already' }),
  run: async ({ args, io, config: load, runId }) => {
    // yargs runs the handler even after a failed validation; the usage error is reported by the parser.
    if (typeof args.to !== 'string') return EXIT.usage;
    const config = load();
    const to = parseExportTarget(args.to);
    const from = parseTarget(config.db);
    if (to.kind === 'duckdb' && from.kind === 'duckdb' && resolve(to.path) === resolve(from.path)) {
      throw new UserError('EXPORT_ONTO_SOURCE', `cannot export ${config.db} onto itself: choose another --to path`);
    }
    const logger = loggerFor(config, io, runId());
    const sink = await openSink(config.db, { existing: true });
    // A DuckDB target is read by the export's own DuckDB, which opens the file itself: the sink,
    // opened to check the target (its close folds the WAL into the file), lets go of it first.
    if (from.kind === 'duckdb') await sink.close();
    let relations: ExportedRelation[];
    let removed: string[];
    try {
      // DuckDB's native library loads only for an export, not for every command.
      beforeLoadingDuckdb();
      const { exportTarget } = await import('../../store/export/export.js');
      const report = await exportTarget(from.kind === 'duckdb' ? { duckdbFile: from.path } : sink, to, {
        force: args.force === true,
        // The first SIGINT or SIGTERM stops it between chunks, and the destination is left as it was.
        signal: io.signal,
        // The table printed at the end says the same: each relation as it is done is for --verbose.
        onProgress: (r) => logger.debug({ relation: r.name, kind: r.kind, rows: r.rows }, 'exported'),
      });
      relations = report.relations;
      removed = report.removed;
    } finally {
      if (from.kind !== 'duckdb') await sink.close();
    }
    const where = to.kind === 'duckdb' ? to.path : to.dir;
    // Disk given back: what exports killed before their end had left beside the destination.
    if (removed.length > 0) logger.info({ removed }, 'removed the work directories of exports that stopped');
    if (config.json) {
      io.stdout.write(`${JSON.stringify({ to: args.to, relations, removed })}\n`);
    } else {
      io.stdout.write(
        renderTable(
          ['relation', 'kind', 'rows'],
          relations.map((r) => [r.name, r.kind, r.rows]),
        ),
      );
      io.stdout.write(
        `exported ${relations.filter((r) => r.kind === 'table').length} tables and ` +
          `${relations.filter((r) => r.kind === 'view').length} views to ${where}\n`,
      );
    }
    return EXIT.ok;
  },
};
