import type { NormalizedBatch } from '../../normalize/rows.js';
import { storableText } from '../../normalize/storable-text.js';
import { boundedJsonText } from '../../normalize/stored-bounds.js';
import { commitKeepingAside, lastResortJson } from '../pages/refused-items.js';
import { readRow } from '../row-reader.js';
import { table, type TableDef } from '../../schema/schema.js';
import { countOutcomes, mergeSessions, probeBatch, writeRejected } from '../pages/session-merge.js';
import type { DeliveryRecord, DeliveryResult, DeliveryStore, MirrorTable } from '../sink.js';
import type { Row, SqlDriver } from '../drivers/sql-driver.js';
import { uniqueByKey } from '../pages/unique-by-key.js';

const MIRRORS: ReadonlySet<string> = new Set<MirrorTable>([
  'webhooks',
  'domains',
  'catalog_brands',
  'catalog_materials',
  'catalog_detail_fields',
  'catalog_categories',
]);

/** Webhook deliveries (the inbox and their sessions) and the mirror tables of the service's own objects. */
export class SqlDeliveryStore implements DeliveryStore {
  readonly #driver: SqlDriver;

  constructor(driver: SqlDriver) {
    this.#driver = driver;
  }

  /**
   * An item the target refuses is kept aside and the rest of the delivery is
   * applied (see refused-items.ts), so the receiver can answer 200 and the
   * service stops sending a delivery that could never be stored.
   */
  async applyDelivery(delivery: DeliveryRecord, batch: NormalizedBatch): Promise<DeliveryResult> {
    return commitKeepingAside(
      batch,
      (kept, lastResort) => this.#apply(delivery, kept, lastResort),
      (part) => probeBatch(this.#driver, part),
    );
  }

  #apply(delivery: DeliveryRecord, batch: NormalizedBatch, lastResort: boolean): Promise<DeliveryResult> {
    return this.#driver.transaction(async (tx) => {
      // A delivery the service sends again while the first is still applied waits, then reads as a duplicate.
      await tx.lock({ delivery: [delivery.id], session: batch.sessions.map((s) => s.row.service_id) });
      const existing = await tx.all('SELECT id FROM webhook_deliveries WHERE id = ?', [delivery.id]);
      if (existing.length > 0) {
        return {
          written: 0,
          unchanged: 0,
          stale: 0,
          rejected: 0,
          missing: 0,
          duplicate: true,
          previousCounters: { authentications: new Map(), fingerprints: new Map() },
        };
      }
      const { outcomes, previousCounters } = await mergeSessions(tx, batch.sessions);
      await writeRejected(tx, batch.rejected);
      const counts = countOutcomes(outcomes);
      await tx.write(
        table('webhook_deliveries'),
        [
          {
            id: delivery.id,
            webhook_uuid: delivery.webhookUuid === null ? null : storableText(delivery.webhookUuid),
            channel: delivery.channel === null ? null : storableText(delivery.channel),
            received_at: delivery.receivedAt,
            signature_ok: true,
            items: delivery.items,
            applied: counts.written,
            // A body nested deeper than every target parses is kept as one JSON string (stored-bounds.ts).
            body: lastResort ? lastResortJson(boundedJsonText(delivery.body)) : boundedJsonText(delivery.body),
          },
        ],
        'ignore',
      );
      return { ...counts, rejected: batch.rejected.length, missing: 0, duplicate: false, previousCounters };
    });
  }

  async replaceMirror(name: MirrorTable, account: string, rows: readonly Row[]): Promise<void> {
    const def = mirror(name, account, rows);
    await this.#driver.transaction(async (tx) => {
      // Two replacements at once would each delete only what was committed before it, keeping both lists' rows.
      await tx.lock({ mirror: [`${name}:${account}`] });
      await tx.run(`DELETE FROM ${def.name} WHERE account = ?`, [account]);
      await tx.write(def, uniqueByKey(def, rows), 'replace');
    });
  }

  async upsertMirror(name: MirrorTable, account: string, rows: readonly Row[]): Promise<void> {
    const def = mirror(name, account, rows);
    if (rows.length === 0) return;
    await this.#driver.transaction((tx) => tx.write(def, uniqueByKey(def, rows), 'replace'));
  }

  async mirrorRows(name: MirrorTable, account: string | null): Promise<Record<string, unknown>[]> {
    const def = mirror(name, account ?? '', []);
    const columns = def.columns.map((c) => c.name).join(', ');
    const rows = await this.#driver.read((tx) =>
      account === null
        ? tx.all(`SELECT ${columns} FROM ${def.name} ORDER BY ${def.primaryKey.join(', ')}`)
        : tx.all(`SELECT ${columns} FROM ${def.name} WHERE account = ? ORDER BY ${def.primaryKey.join(', ')}`, [
            account,
          ]),
    );
    return rows.map((r) => readRow(def, r));
  }
}

/** The mirror table `name`, after checking that each row carries exactly its columns and belongs to `account`. */
function mirror(name: MirrorTable, account: string, rows: readonly Row[]): TableDef {
  if (!MIRRORS.has(name)) throw new Error(`${name} is not a mirror table`);
  const def = table(name);
  const names = new Set(def.columns.map((c) => c.name));
  for (const row of rows) {
    const absent = def.columns.filter((c) => !(c.name in row)).map((c) => c.name);
    const unknown = Object.keys(row).filter((k) => !names.has(k));
    if (absent.length > 0 || unknown.length > 0) {
      throw new Error(`${name}: row lacks [${absent.join(', ')}], has unknown [${unknown.join(', ')}]`);
    }
    if (row.account !== account) throw new Error(`${name}: row of account ${String(row.account)} given for ${account}`);
  }
  return def;
}
