import { expect, it } from 'vitest';
import { openTarget } from '../../src/index.js';
import { parseTarget } from '../../src/store/target/parse-target.js';
import { executeOn } from '../helpers/execute-on.js';
import { errorMessage, runIvsync } from '../helpers/run-cli.js';
import { eachTarget } from '../targets/each-target.js';
import { auth, batch, t } from './fixtures.js';

/*
 * A target that a later release has migrated (a user went back to an older
 * ivsync, or one machine of several runs behind) is written by nothing of
 * this one: its schema may hold what this version would leave empty. The
 * command says so in one line; commands that only read still open it.
 */

const LATER = '20990101000000_a_later_release';

async function appliedNames(url: string): Promise<string[]> {
  const sink = await openTarget(url, { readOnly: true });
  try {
    return (await sink.query('SELECT name FROM knex_migrations ORDER BY id')).map((r) => String(r.name));
  } finally {
    await sink.close();
  }
}

eachTarget((_dialect, target) => {
  it('refuses every write in one line, writes nothing, and still opens for reading', async () => {
    const url = target().url;
    const created = await runIvsync(['migrate'], { IVS_DB: url });
    expect(created.stderr).toBe('');
    await executeOn(url, [
      'INSERT INTO knex_migrations (id, name, batch, migration_time) VALUES (9999, ' +
        `'${LATER}', 99, '2099-01-01 00:00:00')`,
    ]);
    const before = await appliedNames(url);
    expect(before.at(-1)).toBe(LATER);

    const migrate = await runIvsync(['migrate'], { IVS_DB: url });
    expect(migrate.code).toBe(1);
    const parsed = parseTarget(url);
    const label = parsed.kind === 'postgres' ? parsed.redacted : url;
    expect(errorMessage(migrate.stderr)).toBe(
      `target ${label} was migrated by a newer ivsync (migration ${LATER}, unknown to this one): nothing was ` +
        'written; run the ivsync that wrote it, or a later one',
    );
    await expect(openTarget(url)).rejects.toMatchObject({ code: 'TARGET_NEWER' });
    expect(await appliedNames(url)).toEqual(before);

    // A command that reads opens it as it is, and a write through it is refused the same way.
    const status = await runIvsync(['status', '--json'], { IVS_DB: url });
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ tables: { authentications: 0 } });
    const reading = await openTarget(url, { existing: true });
    try {
      await expect(reading.mergeBatch(batch([auth('s1', { last_synced_at: t(1) })]))).rejects.toMatchObject({
        code: 'TARGET_NEWER',
      });
    } finally {
      await reading.close();
    }
    expect(await appliedNames(url)).toEqual(before);
  });
});
