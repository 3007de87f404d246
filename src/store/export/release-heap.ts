import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** V8's collector, once looked up: null where this Node cannot lend it. */
let collect: Collect | null | undefined;

function collector(): Collect | null {
  if (collect !== undefined) return collect;
  try {
    const own = (globalThis as { gc?: unknown }).gc;
    if (typeof own === 'function') {
      collect = own as Collect;
    } else {
      // The flag adds `gc` to contexts made from now on; the process's own global is left as it was.
      setFlagsFromString('--expose-gc');
      const lent: unknown = runInNewContext('gc');
      collect = typeof lent === 'function' ? (lent as Collect) : null;
    }
  } catch {
    collect = null;
  }
  return collect;
}

/**
 * Gives what the JavaScript heap holds free back to the system: a full
 * collection of the kind V8 runs before it would fail for memory, which also
 * shrinks the young generation to its least and returns the pages it pooled.
 * V8 keeps them otherwise, and a regular collection does not: between two
 * steps of an export whose memory changes hands, from the rows read through
 * JavaScript to DuckDB's own, a million sessions' export held 311 MB of RSS
 * after its tables, 211 MB after this, and 305 MB after a regular one (Node
 * 24). Synchronous, tens of milliseconds on a heap of some 80 MB: for the
 * boundaries of long steps, never per row. Does nothing where the collector
 * cannot be had.
 */
export function releaseHeap(): void {
  collector()?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
