/**
 * The table `ivsync export` writes into a DuckDB export, and only there: it
 * makes an export recognisably one, so that opening it as a target neither
 * migrates nor writes into the analyst's copy (see target-kind.ts). One row:
 * when the export was made.
 */
export const EXPORT_MARKER = 'ivsync_export';

export const EXPORT_MARKER_DDL =
  `CREATE TABLE ${EXPORT_MARKER} (exported_at ` + `TIMESTAMPTZ NOT NULL, note VARCHAR NOT NULL)`;

/** What the marker row says to an analyst who finds the table. */
export const EXPORT_MARKER_NOTE = 'an analyst copy made by ivsync export; ivsync reads it but never syncs into it';
