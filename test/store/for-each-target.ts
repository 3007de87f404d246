import { afterEach } from 'vitest';
import type { Dialect } from '../../src/schema/dialect.js';
import { openSink, type OpenSinkOptions } from '../../src/store/open-sink.js';
import type { QueryableSink } from '../../src/store/sql-sink.js';
import { eachTarget } from '../targets/each-target.js';

export interface TargetContext {
  /** The target of the current test (a fresh file or schema per test). */
  readonly target: () => string;
  /** Opens (and migrates) the current test's target; closed after the test. */
  readonly open: (options?: OpenSinkOptions) => Promise<QueryableSink>;
}

/**
 * Runs the same suite against every target, each test on a fresh database
 * (the per-dialect loop of test/targets/each-target.ts), with the test's
 * sinks opened through `ctx.open` and closed after it.
 */
export function forEachTarget(suite: (dialect: Dialect, ctx: TargetContext) => void): void {
  eachTarget((dialect, target) => {
    let opened: QueryableSink[] = [];
    afterEach(async () => {
      for (const sink of opened) await sink.close();
      opened = [];
    });
    suite(dialect, {
      target: () => target().url,
      open: async (options) => {
        const sink = await openSink(target().url, options);
        opened.push(sink);
        return sink;
      },
    });
  });
}
