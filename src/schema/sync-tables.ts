/**
 * The state of syncing: the crawl checkpoint of each window, the record of each run and the leases that keep
 * two processes from syncing the same thing. Part of TABLES (schema.ts), which places each in the table list.
 */

import { col } from './column.js';
import type { TableDef } from './table-def.js';

export const SYNC_WINDOWS: TableDef = {
  name: 'sync_windows',
  description:
    "Crawl checkpoints: one row per epoch window per account, resource and interface. A page's rows and its " +
    "window's checkpoint are written in one transaction.",
  primaryKey: ['account', 'resource', 'api_version', 'window_start'],
  columns: [
    col('account', 'text', 'Configured account name.', { nullable: false }),
    col('resource', 'text', "'authentications' or 'fingerprints'.", { nullable: false }),
    col('api_version', 'text', "'1.4' or '2'.", { nullable: false }),
    col('window_start', 'integer', 'Window start, epoch seconds (inclusive).', { nullable: false }),
    col('window_end', 'integer', 'Window end, epoch seconds (exclusive).', { nullable: false }),
    col(
      'status',
      'text',
      "'pending', 'running', 'done', 'sealed' (all final and older than the overlap: never fetched again " +
        "unless `ivsync reset` or `verify --repair` reopens it) or 'failed'.",
      { nullable: false },
    ),
    col(
      'cursor',
      'text',
      'next_cursor of the last committed page of the current pass, as JSON text (a string cursor is quoted); ' +
        'null before the first page and after the last.',
    ),
    col(
      'pages',
      'integer',
      'Pages committed in the current pass that were asked for this window (a page that reaches into the ' +
        'next windows counts once, here).',
      { nullable: false },
    ),
    col('items', 'integer', 'Items committed in the current pass.', { nullable: false }),
    col('attempts', 'integer', 'Passes started over the window.', { nullable: false }),
    col('error', 'text', 'Last error of the window, if it failed.'),
    col('updated_at', 'timestamp', 'When the row last changed.', { nullable: false }),
    col(
      'pass_from',
      'integer',
      'Start of the range the current pass requests: part of the window for a sync, or adjacent windows too ' +
        'when one request stream pages them (its cursor belongs to that range).',
    ),
    col(
      'pass_to',
      'integer',
      "End of the range the current pass requests; only the window's own part of the range counts for " +
        'synced_to and missing sessions.',
    ),
    col(
      'pass_started_at',
      'timestamp',
      'When the current pass began; sessions of a complete pass not seen since then are marked missing.',
    ),
    col(
      'synced_to',
      'integer',
      'Upper bound of the range that the last complete pass covered; the high-water mark is the largest.',
    ),
  ],
};

export const SYNC_RUNS: TableDef = {
  name: 'sync_runs',
  description: 'One row per command run (backfill, sync, webhook serve, ...).',
  primaryKey: ['id'],
  columns: [
    col('id', 'text', 'Run id (also in every log line of the run).', { nullable: false }),
    col('command', 'text', 'backfill, sync, ...', { nullable: false }),
    col('started_at', 'timestamp', 'When the run started.', { nullable: false }),
    col('finished_at', 'timestamp', 'When the run ended; null while running or after a crash.'),
    col(
      'status',
      'text',
      "'running', 'succeeded', 'failed', 'interrupted' or 'abandoned' (its process died; see error for when " +
        'and how that was found).',
      { nullable: false },
    ),
    col('requests', 'integer', 'Requests sent by the run.', { nullable: false }),
    col('items_written', 'integer', 'Items written by the run.', { nullable: false }),
    col('error', 'text', 'One-line error of a failed run.'),
    col('account', 'text', 'Account the run synced; null for all.'),
    col(
      'holder',
      'text',
      'The process that ran it (host:pid:id, as in sync_leases); null for runs recorded before this column existed.',
    ),
    col(
      'refresh_budget',
      'integer',
      'Requests the refresh of non-final sessions was allowed in the run (every account and resource); ' +
        'null for runs before this column existed and runs without a refresh.',
    ),
    col(
      'refresh_spent',
      'integer',
      'Requests the refresh sent (each attempt); ' +
        'what it left of the budget (refresh_budget - refresh_spent) was saved.',
    ),
    col(
      'throttled',
      'integer',
      "Answers 429 (Too Many Requests) the run's requests met; null for runs before this column existed.",
    ),
    col(
      'retry_wait_ms',
      'integer',
      "Milliseconds the run's retries waited before trying again (429s and passing faults).",
    ),
  ],
};

export const SYNC_LEASES: TableDef = {
  name: 'sync_leases',
  description:
    'Who syncs what now: one row per lease (e.g. an account into this target), with a heartbeat; a stale ' +
    'lease is taken over.',
  primaryKey: ['name'],
  columns: [
    col('name', 'text', 'What the lease guards, e.g. account:default.', { nullable: false }),
    col('holder', 'text', 'host:pid:run of the process that holds it.', { nullable: false }),
    col('acquired_at', 'timestamp', 'When the holder took it.', { nullable: false }),
    col('heartbeat_at', 'timestamp', 'Last heartbeat of the holder.', { nullable: false }),
  ],
};
