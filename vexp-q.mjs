import { DuckDBInstance } from '@duckdb/node-api';
const which = process.argv[2];
const inst = await DuckDBInstance.create('/tmp/vexp/stage.duckdb', { memory_limit: process.argv[3] ?? '192MB', threads: '1', preserve_insertion_order: 'false',
  allocator_flush_threshold: '8MB', allocator_bulk_deallocation_flush_threshold: '16MB', allocator_background_threads: 'true' });
const c = await inst.connect();
await c.run(`CREATE OR REPLACE VIEW authentications AS SELECT * FROM read_parquet('/tmp/vexp/auth.parquet')`);
const rank = `CASE WHEN a.result_final THEN 0 ELSE 1 END, CASE WHEN a.created_epoch IS NULL THEN 1 ELSE 0 END, CASE WHEN a.result_final THEN a.created_epoch ELSE -a.created_epoch END, a.service_id`;
const Q = {
  window: `SELECT * FROM authentications WHERE service_id IN (SELECT service_id FROM (
  SELECT a.service_id, ROW_NUMBER() OVER (PARTITION BY a.account, a.customer_item_id ORDER BY ${rank}) AS lookup_rank
  FROM authentications a WHERE a.customer_item_id IS NOT NULL AND a.missing_since IS NULL) ranked WHERE lookup_rank = 1)`,
  argmin: `SELECT * FROM authentications WHERE service_id IN (SELECT arg_min(a.service_id, (${rank})) FROM authentications a
  WHERE a.customer_item_id IS NOT NULL AND a.missing_since IS NULL GROUP BY a.account, a.customer_item_id)`,
  argminjoin: `SELECT x.* FROM authentications x JOIN (SELECT arg_min(a.service_id, (${rank})) AS service_id FROM authentications a
  WHERE a.customer_item_id IS NOT NULL AND a.missing_since IS NULL GROUP BY a.account, a.customer_item_id) w ON w.service_id = x.service_id`,
  notexists: `SELECT a.* FROM authentications a WHERE a.customer_item_id IS NOT NULL AND a.missing_since IS NULL AND NOT EXISTS (
    SELECT 1 FROM authentications b WHERE b.account = a.account AND b.customer_item_id = a.customer_item_id AND b.missing_since IS NULL AND b.service_id <> a.service_id
    AND (CASE WHEN b.result_final THEN 0 ELSE 1 END, CASE WHEN b.created_epoch IS NULL THEN 1 ELSE 0 END, CASE WHEN b.result_final THEN b.created_epoch ELSE -b.created_epoch END, b.service_id)
      < (CASE WHEN a.result_final THEN 0 ELSE 1 END, CASE WHEN a.created_epoch IS NULL THEN 1 ELSE 0 END, CASE WHEN a.result_final THEN a.created_epoch ELSE -a.created_epoch END, a.service_id))`,
};
const t0 = Date.now();
try {
  await c.run(`COPY (${Q[which]}) TO '/tmp/vexp/out-${which}.parquet' (FORMAT parquet, ROW_GROUP_SIZE 32768, ROW_GROUP_SIZE_BYTES '16MB')`);
  const r = await c.runAndReadAll(`SELECT count(*) FROM read_parquet('/tmp/vexp/out-${which}.parquet')`);
  console.log(which, 'rows', r.getRows()[0][0], 'ms', Date.now() - t0);
} catch (e) { console.log(which, 'FAILED', String(e.message).slice(0, 200), 'ms', Date.now() - t0); }
