import {
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTypeId,
  JSDuckDBValueConverter,
  type DuckDBValueConverter,
  type JS,
} from '@duckdb/node-api';
import { isoFromMicros } from '../../../normalize/time.js';

/**
 * Values as ivsync reads them from DuckDB: times (TIMESTAMPTZ, and TIMESTAMP
 * read as UTC) as the ISO text `2026-01-02T03:04:05.123456Z` that every
 * target hands out (the node API would make a millisecond Date of them),
 * dates as `YYYY-MM-DD`, BIGINT and HUGEINT as JS numbers (ivsync's counts,
 * epochs and counters fit), the rest as the node API's JS values.
 */
export const readDuckdbValue: DuckDBValueConverter<JS> = (value, type, converter) => {
  if (value === null) return null;
  switch (type.typeId) {
    case DuckDBTypeId.TIMESTAMP_TZ:
    case DuckDBTypeId.TIMESTAMP:
      if (!(value instanceof DuckDBTimestampTZValue || value instanceof DuckDBTimestampValue) || !value.isFinite)
        return String(value);
      return isoFromMicros(Number(value.micros));
    case DuckDBTypeId.DATE:
      return String(value);
  }
  const js = JSDuckDBValueConverter(value, type, converter);
  return typeof js === 'bigint' ? Number(js) : js;
};
