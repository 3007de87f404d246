import { openSink } from '../../src/store/open-sink.js';

/** Reads a target through the store's own query path (opened, read, closed: the CLI may open it next). */
export async function readTarget(
  url: string,
  sql: string,
  params: readonly unknown[] = [],
): Promise<Record<string, unknown>[]> {
  const sink = await openSink(url);
  try {
    return await sink.query(sql, params);
  } finally {
    await sink.close();
  }
}
