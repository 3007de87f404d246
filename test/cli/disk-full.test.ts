import { execFileSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliError, runIvsync, spawnIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';
import { HISTORY_END, HISTORY_START, truthFacts, type SessionResource } from '../helpers/truth.js';
import { readTarget } from '../targets/read-target.js';
import { storedFacts } from '../targets/truth-rows.js';

/*
 * A real small disk (tmpfs): a backfill that fills it stops with one line and
 * keeps what it committed; once room equal to the size of the finished file is
 * added, the same command resumes and ends equal to the truth. That holds
 * only while the WAL stays bounded (src/store/drivers/wal-bound.ts): a WAL that grew
 * to several times the data would need that much room again. The failed run
 * is recorded `failed` with its error, in the room its disk reserve kept.
 */
const tempDir = useTempDir();

/** Whether this user may mount a tmpfs (root, or a container that allows it). */
function canMount(): boolean {
  const dir = join(tempDir(), 'probe');
  mkdirSync(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    execFileSync('umount', [dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const mountable = canMount();
if (!mountable) {
  // In CI a skipped disk-full test is a failure, not a silent pass.
  if (process.env.IVS_REQUIRE_MOUNT === '1')
    throw new Error(
      'mount -t tmpfs is refused to this user, and IVS_REQUIRE_MOUNT=1 forbids skipping the disk-full tests',
    );
  console.warn('mount -t tmpfs is refused to this user: the disk-full tests are skipped');
}

const RESOURCES: readonly SessionResource[] = ['authentications', 'fingerprints'];
const KIB = 1024;

describe.skipIf(!mountable)('a disk that fills up during a backfill', () => {
  const simulator = useSimulators({ sessions: 1500, rate: 2000, burst: 2000, seed: 17 });
  const mounted: string[] = [];
  afterEach(() => {
    // Lazily: a case that failed may leave a child with the file open, and its failure is the one to read.
    for (const dir of mounted.splice(0)) execFileSync('umount', ['-l', dir]);
  });

  it.each([['sqlite'], ['duckdb']] as const)(
    '%s: one line, exit 1; with room for the file added, the same command resumes and ends equal to the truth',
    async (kind) => {
      const sim = await simulator();
      const args = ['backfill', '--from', String(HISTORY_START), '--to', String(HISTORY_END), '--json'];
      const envFor = (db: string) => ({
        IVS_BASE_URL: sim.url,
        IVS_API_TOKEN: 'test-token',
        IVS_DB: db,
        IVS_CONFIG: writeConfig(tempDir()),
        IVS_RATE: '2000',
        IVS_LOG_LEVEL: 'silent',
      });

      // The size of the finished file: the same backfill on a disk with room.
      const reference = join(tempDir(), `reference.${kind}`);
      const full = await runIvsync(args, envFor(`${kind}:${reference}`));
      expect(full.code).toBe(0);
      const fileBytes = statSync(reference).size;
      const writtenWhole = (JSON.parse(full.stdout) as { written: number }).written;

      // Room for an empty target and part of the data, not all of it.
      const disk = join(tempDir(), 'disk');
      mkdirSync(disk);
      const startKib = Math.ceil(Math.max(2048 * KIB, fileBytes / 2) / KIB);
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${startKib}k`, 'tmpfs', disk]);
      mounted.push(disk);
      const target = `${kind}:${join(disk, `target.${kind}`)}`;

      const failed = await spawnIvsync(args, envFor(target)).exited;
      expect(failed.code).toBe(1);
      const error = cliError(failed.stderr);
      expect(error?.code).toBe('TARGET_FAILED');
      expect(error?.message).toMatch(
        new RegExp(
          `^${kind} failed \\([A-Za-z_ ]+\\): the disk is full: free space where the target is, then run the ` +
            `same command again`,
        ),
      );
      expect(error?.message).not.toMatch(/insert|select|\bat /i);

      // Freed: exactly the size of the file a whole backfill leaves.
      execFileSync('mount', ['-o', `remount,size=${startKib + Math.floor(fileBytes / KIB)}k`, disk]);
      // The run the disk stopped says so itself (in the room it kept for that), before anything else opens the target.
      const runs = await readTarget(target, 'SELECT status, error, finished_at FROM sync_runs');
      expect(runs).toEqual([{ status: 'failed', error: error?.message, finished_at: expect.any(String) }]);
      const [kept] = await readTarget(
        target,
        'SELECT (SELECT count(*) FROM authentications) + (SELECT count(*) FROM fingerprints) AS n',
      );
      const resumed = await spawnIvsync(args, envFor(target)).exited;
      expect(cliError(resumed.stderr)).toBeUndefined();
      expect(resumed.code).toBe(0);
      // What the failed run committed was kept: the resume wrote less than a whole backfill (the pages it fetches
      // again around its checkpoints find their sessions stored and unchanged, so how much it fetched says less).
      expect(Number(kept?.n ?? 0)).toBeGreaterThan(0);
      expect((JSON.parse(resumed.stdout) as { written: number }).written).toBeLessThan(writtenWhole);
      for (const resource of RESOURCES) expect(await storedFacts(target, resource)).toEqual(truthFacts(sim, resource));
    },
  );
});
