import { expect, it } from 'vitest';
import { normalizeItems } from '../../src/normalize/normalize-item.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import { v14Authentication } from '../normalize/fixtures.js';
import { forEachTarget } from './for-each-target.js';
import { rawDriver } from './raw-driver.js';

const ID = 'A-1001';

/** The fixture item, not final until `final`, with `identifier` as its text field of that name. */
function item(final: boolean, identifier = 'SD1234'): Record<string, unknown> {
  const it = v14Authentication();
  it.status = { flag: null, result: { id: final ? 'authentic' : 'pending', display: null, final } };
  it.text_fields = { ...(it.text_fields as Record<string, unknown>), identifier };
  return it;
}

/** One poll of the item, observed at the given second of the day. */
async function poll(sink: QueryableSink, polled: Record<string, unknown>, second: number): Promise<void> {
  const observedAt = `2026-11-22T05:00:${String(second).padStart(2, '0')}.000000Z`;
  const batch = normalizeItems('authentications', '1.4', [polled], {
    account: 'default',
    source: 'search',
    observedAt,
  });
  expect(batch.rejected).toEqual([]);
  await sink.mergeBatch(batch);
}

async function values(sink: QueryableSink, sql: string): Promise<string[]> {
  return (await sink.query(sql, [ID])).map((r) => String(r.v));
}

forEachTarget((_dialect, ctx) => {
  it('a changed session keeps the child rows its stored item gives alike, replaces those it changes', async () => {
    const first = await ctx.open();
    await poll(first, item(false), 1);
    await first.close();
    // Rows the stored item no longer says, as an older ivsync or a hand might have left them: a merge that rewrote
    // the kind would put the item's own rows back.
    const driver = await rawDriver(ctx.target());
    await driver.transaction(async (tx) => {
      await tx.run(`UPDATE session_text_fields SET value = 'kept' WHERE service_id = ? AND key = 'style_code'`, [ID]);
      await tx.run(`UPDATE session_images SET url = 'kept' WHERE service_id = ? AND name = 'photo_0'`, [ID]);
    });
    await driver.close();

    const sink = await ctx.open();
    const result = `SELECT result_id AS v FROM authentications WHERE service_id = ?`;
    const fields = `SELECT key || '=' || COALESCE(value, '') AS v FROM session_text_fields
      WHERE service_id = ? ORDER BY key`;
    const images = `SELECT name || '=' || COALESCE(url, '') AS v FROM session_images
      WHERE service_id = ? ORDER BY name`;
    // The result changed; the text fields and photos did not: their rows stay as stored.
    await poll(sink, item(true), 2);
    expect(await values(sink, result)).toEqual(['authentic']);
    expect(await values(sink, fields)).toEqual([
      'customer_item_id=SKU-77',
      'identifier=SD1234',
      'style_code=kept',
      'us_size=9.5',
    ]);
    expect(await values(sink, images)).toEqual(['photo_0=kept', 'photo_1=https://img.example.com/2.jpg']);

    // A text field changed: the item's text fields are written anew, the photos still stay.
    await poll(sink, item(true, 'SD9999'), 3);
    expect(await values(sink, fields)).toEqual([
      'customer_item_id=SKU-77',
      'identifier=SD9999',
      'style_code=M40995',
      'us_size=9.5',
    ]);
    expect(await values(sink, images)).toEqual(['photo_0=kept', 'photo_1=https://img.example.com/2.jpg']);
  });
});
