import { PerformanceObserver } from 'node:perf_hooks';

/** The pauses V8's collector made in this process while watched. */
export interface CollectorPauses {
  totalMs: number;
  longestMs: number;
}

/**
 * Watches this process's collector from now until the returned function is
 * called. The benches serve the simulator from their own process: at ten
 * million sessions its world is a heap of gigabytes, and each pause of its
 * collector is time the service answers nothing, which a figure of the
 * crawler would otherwise take as its own.
 */
export function watchCollectorPauses(): () => CollectorPauses {
  const pauses: CollectorPauses = { totalMs: 0, longestMs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      pauses.totalMs += entry.duration;
      pauses.longestMs = Math.max(pauses.longestMs, entry.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    observer.disconnect();
    return { ...pauses };
  };
}
