import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CommitQueue } from '../../src/crawl/engine/commit-queue.js';
import type { Resource } from '../../src/normalize/rows.js';
import { openSink } from '../../src/store/open-sink.js';
import type { PageCommit } from '../../src/store/sink.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import { useTempDir } from '../helpers/temp-dir.js';
import { auth, batch, fp, rejected, t } from '../store/fixtures.js';

const tempDir = useTempDir();
let sink: QueryableSink | undefined;
afterEach(async () => {
  await sink?.close();
  sink = undefined;
});

async function openWithWindows(keys: ReadonlyArray<{ account: string; resource: Resource }>): Promise<QueryableSink> {
  sink = await openSink(`sqlite:${join(tempDir(), 'q.sqlite')}`);
  for (const k of keys) {
    const key = { ...k, apiVersion: '1.4' as const, windowStart: 0 };
    await sink.planWindows([{ ...key, windowEnd: 10_000 }]);
    await sink.startPass(key, { passFrom: 0, passTo: 10_000, startedAt: t(0) });
  }
  return sink;
}

function page(
  account: string,
  resource: Resource,
  ids: readonly string[],
  options: { done?: boolean; rejected?: number } = {},
): PageCommit {
  const make = resource === 'authentications' ? auth : fp;
  const sessions = ids.map((id) => make(id, { account, created_epoch: 100, last_synced_at: t(1) }));
  const bad = Array.from({ length: options.rejected ?? 0 }, (_, i) => ({
    ...rejected(`${account}-${resource}-bad-${i}`, t(1)),
    account,
    resource,
  }));
  return {
    key: { account, resource, apiVersion: '1.4', windowStart: 0 },
    batch: batch(sessions, bad),
    nextCursor: options.done ? null : 'next',
    done: options.done ?? false,
    now: t(1),
  };
}

describe('CommitQueue', () => {
  it('pages of two accounts and two resources that commit in one group each get their own counts', async () => {
    const keys = [
      { account: 'a1', resource: 'authentications' as const },
      { account: 'a1', resource: 'fingerprints' as const },
      { account: 'a2', resource: 'authentications' as const },
      { account: 'a2', resource: 'fingerprints' as const },
    ];
    const target = await openWithWindows(keys);
    // A session that 'a2' already holds, seen again unchanged.
    await target.mergeBatch(batch([auth('a2-known', { account: 'a2', created_epoch: 100, last_synced_at: t(1) })]));
    // Seen 'missing' for a1/fingerprints when its pass completes: stored, in range, not returned.
    await target.mergeBatch(batch([fp('a1-gone', { account: 'a1', created_epoch: 200, last_synced_at: t(-10) })]));
    const queue = new CommitQueue(target);
    const first = queue.commit(page('a1', 'authentications', ['warm-up']));
    // Committed together, while the first transaction runs.
    const grouped = [
      queue.commit(page('a1', 'authentications', ['x1', 'x2', 'x3'])),
      queue.commit(page('a1', 'fingerprints', ['f1'], { done: true })),
      queue.commit(page('a2', 'authentications', ['a2-known', 'y1'], { rejected: 2 })),
      queue.commit(page('a2', 'fingerprints', ['g1', 'g2'])),
    ];
    expect(await first).toMatchObject({ written: 1 });
    expect(await Promise.all(grouped)).toEqual([
      { written: 3, unchanged: 0, stale: 0, rejected: 0, missing: 0 },
      { written: 1, unchanged: 0, stale: 0, rejected: 0, missing: 1 },
      { written: 1, unchanged: 1, stale: 0, rejected: 2, missing: 0 },
      { written: 2, unchanged: 0, stale: 0, rejected: 0, missing: 0 },
    ]);
  });

  it('a page that fails its group is committed alone, and only it fails', async () => {
    const target = await openWithWindows([{ account: 'a1', resource: 'authentications' }]);
    const queue = new CommitQueue(target);
    const first = queue.commit(page('a1', 'authentications', ['w']));
    const good = queue.commit(page('a1', 'authentications', ['ok1', 'ok2']));
    const orphan = queue.commit({
      ...page('a1', 'authentications', ['lost']),
      key: { account: 'a1', resource: 'authentications', apiVersion: '1.4', windowStart: 999 },
    });
    await first;
    expect(await good).toMatchObject({ written: 2 });
    await expect(orphan).rejects.toThrow(/no window/);
    const ids = await target.query('SELECT service_id FROM authentications ORDER BY service_id');
    expect(ids.map((r) => r.service_id)).toEqual(['ok1', 'ok2', 'w']);
  });

  it(
    'the commits of one fetched page share one transaction: the group limit counts fetched pages, never cuts ' +
      'one, and its commits fail together',
    async () => {
      const target = await openWithWindows([{ account: 'a1', resource: 'authentications' }]);
      const transactions: number[] = [];
      const sink = {
        commitPage: (p: PageCommit) => (transactions.push(1), target.commitPage(p)),
        commitPages: (ps: readonly PageCommit[]) => (transactions.push(ps.length), target.commitPages(ps)),
      };
      const queue = new CommitQueue(sink, { maxPages: 2 });
      const first = queue.commit(page('a1', 'authentications', ['w']));
      const three = queue.commitAll([
        page('a1', 'authentications', ['s1']),
        page('a1', 'authentications', ['s2']),
        page('a1', 'authentications', ['s3']),
      ]);
      const broken = queue.commitAll([
        page('a1', 'authentications', ['half']),
        {
          ...page('a1', 'authentications', ['lost']),
          key: { account: 'a1', resource: 'authentications', apiVersion: '1.4', windowStart: 999 },
        },
      ]);
      const single = queue.commit(page('a1', 'authentications', ['z']));
      await first;
      expect((await three).map((r) => r.written)).toEqual([1, 1, 1]);
      await expect(broken).rejects.toThrow(/no window/);
      expect(await single).toMatchObject({ written: 1 });
      // 1; then two fetched pages, the limit, with their 5 commits (failed by the broken one); then each of them
      // alone: the page of 3, the broken page (its good half rolled back); then the single page.
      expect(transactions).toEqual([1, 5, 3, 2, 1]);
      const ids = await target.query('SELECT service_id FROM authentications ORDER BY service_id');
      expect(ids.map((r) => r.service_id)).toEqual(['s1', 's2', 's3', 'w', 'z']);
    },
  );

  it(
    'pages that arrive fast, one by one, wait for one transaction together; slow ones, or with no gap, commit ' +
      'alone',
    async () => {
      const target = await openWithWindows([{ account: 'a1', resource: 'authentications' }]);
      let now = 0;
      // Each id a fetched page, with items of `windows` windows (a commit each).
      const arriveApart = async (queue: CommitQueue, ids: readonly string[], apartMs: number, windows = 1) => {
        const settled: Array<Promise<unknown>> = [];
        for (const id of ids) {
          now += apartMs;
          const commits = Array.from({ length: windows }, (_, w) => page('a1', 'authentications', [`${id}-${w}`]));
          settled.push(queue.commitAll(commits));
          // A response of its own: the next page arrives in a later turn of the event loop.
          await new Promise((resolve) => setImmediate(resolve));
        }
        return Promise.all(settled);
      };
      const counting = (transactions: number[]) => ({
        commitPage: (p: PageCommit) => (transactions.push(1), target.commitPage(p)),
        commitPages: (ps: readonly PageCommit[]) => (transactions.push(ps.length), target.commitPages(ps)),
      });
      // A gap far longer than the test: a group that waits starts only when it is full.
      const options = { maxPages: 3, gapMs: 3_600_000, now: () => now };
      const fast: number[] = [];
      await arriveApart(new CommitQueue(counting(fast), options), ['f0', 'f1', 'f2', 'f3'], 1);
      expect(fast).toEqual([1, 3]);
      const slow: number[] = [];
      await arriveApart(new CommitQueue(counting(slow), options), ['s0', 's1', 's2', 's3'], 1_000_000);
      expect(slow).toEqual([1, 1, 1, 1]);
      const noGap: number[] = [];
      await arriveApart(new CommitQueue(counting(noGap), { ...options, gapMs: 0 }), ['n0', 'n1', 'n2'], 1);
      expect(noGap).toEqual([1, 1, 1]);
      // The pace is fetched pages': pages of two windows each, too far apart to wait, commit alone.
      const spanning: number[] = [];
      await arriveApart(new CommitQueue(counting(spanning), options), ['w0', 'w1', 'w2'], 1_000_000, 2);
      expect(spanning).toEqual([2, 2, 2]);
      const ids = await target.query('SELECT count(*) AS n FROM authentications');
      expect(Number(ids[0]!.n)).toBe(17);
    },
  );
});
