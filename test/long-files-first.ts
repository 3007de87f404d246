import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first (seconds each in an eight-worker run of the suite on the 2-core
 * machine, 26 November 2026). Started last, one of them alone kept the run going a minute after the others were
 * done: a fresh clone (CI) has no record of past durations for vitest to order by, so it started them by size.
 */
const LONG_FILES = [
  'test/targets/crawl-suite.test.ts', // 77
  'test/store/upgrade-every-step-duckdb.test.ts', // 22 alone, its cases one after another
  'test/export/export.test.ts', // 53
  'test/cli/crash-resume.test.ts', // 71 for its one test
  'test/daemon/two-daemons-postgres.test.ts', // 38
  'test/daemon/concurrent-sync.test.ts', // 36
  'test/cli/database-restart.test.ts', // 30
  'test/daemon/webhook-refresh.test.ts', // 37 for its one test
  'test/cli/disk-full.test.ts', // 29
  'test/store/sink-merge.test.ts',
  'test/store/sink-windows.test.ts',
  'test/daemon/alert-delivery.test.ts',
  'test/daemon/idle-daemon.test.ts',
  'test/targets/fresh-after-backfill.test.ts',
  'test/store/old-target-fixtures.test.ts',
  'test/daemon/background-backfill.test.ts',
  'test/daemon/target-outage.test.ts',
  'test/targets/poison-items.test.ts',
  'test/targets/idle-sync.test.ts',
  'test/daemon/daemon-process.test.ts',
  'test/store/upgrade-every-step-postgres.test.ts', // 12 alone
];

/** vitest's own order (past durations when it has them, else size), but the long files above first, in that order. */
export class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONG_FILES.indexOf(relative(file.project.config.root, file.moduleId).split('\\').join('/'));
      return at < 0 ? LONG_FILES.length : at;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
