import type { WindowKey, WindowSpec, WindowState } from '../../store/sink.js';
import type { SpanWindow } from './span.js';
import { keyOf } from './window-key.js';

/**
 * The windows a split cuts from `window`, one per range: their specs for the
 * store, and the same windows as fresh pending ones to page, each covered
 * whole by the stream that takes it.
 */
export function splitParts(
  window: WindowKey,
  ranges: ReadonlyArray<readonly [number, number]>,
  now: string,
): { specs: WindowSpec[]; parts: SpanWindow[] } {
  const specs: WindowSpec[] = ranges.map(([a, b]) => ({ ...keyOf(window), windowStart: a, windowEnd: b }));
  const parts = specs.map((spec) => ({ window: pending(spec, now), lo: spec.windowStart, hi: spec.windowEnd }));
  return { specs, parts };
}

function pending(spec: WindowSpec, now: string): WindowState {
  return {
    ...spec,
    status: 'pending',
    cursor: null,
    pages: 0,
    items: 0,
    attempts: 0,
    error: null,
    updatedAt: now,
    passFrom: null,
    passTo: null,
    passStartedAt: null,
    syncedTo: null,
  };
}
