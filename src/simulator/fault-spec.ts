import type { Random } from './prng.js';

export type FaultKind = '500' | 'reset' | 'truncate' | 'slow' | '429';
export const FAULT_KINDS: readonly FaultKind[] = ['500', 'reset', 'truncate', 'slow', '429'];

/**
 * Per-request fault probabilities. At most one fault hits a request; the
 * probabilities must add up to at most 1.
 */
export interface FaultSpec {
  /** Answer 500. @default 0 */
  '500'?: number;
  /** Destroy the socket without answering. @default 0 */
  reset?: number;
  /** Answer 200 with the JSON body cut in half. @default 0 */
  truncate?: number;
  /** Answer normally after `ms` more. @default none */
  slow?: { probability: number; ms: number };
  /** A spurious 429 with Retry-After (the token bucket was not empty). @default 0 */
  '429'?: number;
}

export type FaultDecision = { kind: 'none' } | { kind: Exclude<FaultKind, 'slow'> } | { kind: 'slow'; ms: number };

const probabilityOf = (spec: FaultSpec, kind: FaultKind): number =>
  kind === 'slow' ? (spec.slow?.probability ?? 0) : (spec[kind] ?? 0);

/**
 * Parses "500=0.05,reset=0.02,truncate=0.02,slow=0.01:3000,429=0.02".
 * An empty string means no faults.
 */
export function parseFaultSpec(text: string): FaultSpec {
  const spec: FaultSpec = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const match = /^([a-z0-9]+)=([0-9.]+)(?::([0-9]+))?$/.exec(part);
    if (match === null) throw new Error(`bad fault "${part}": expected kind=probability (slow=probability:ms)`);
    // The pattern matched, so the first two groups are there.
    const [, kind = '', probabilityText = '', msText] = match;
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
      throw new Error(`bad fault "${part}": unknown kind "${kind}", expected one of ${FAULT_KINDS.join(', ')}`);
    }
    const probability = Number(probabilityText);
    if (!Number.isFinite(probability) || probability < 0 || probability > 1) {
      throw new Error(`bad fault "${part}": probability must be between 0 and 1, got ${probabilityText}`);
    }
    if (kind === 'slow') {
      if (msText === undefined) throw new Error(`bad fault "${part}": slow needs a delay, e.g. slow=0.01:3000`);
      spec.slow = { probability, ms: Number(msText) };
    } else {
      if (msText !== undefined) throw new Error(`bad fault "${part}": only slow takes a delay`);
      spec[kind as Exclude<FaultKind, 'slow'>] = probability;
    }
  }
  validateFaultSpec(spec);
  return spec;
}

export function validateFaultSpec(spec: FaultSpec): void {
  let total = 0;
  for (const kind of FAULT_KINDS) {
    const p = probabilityOf(spec, kind);
    if (!Number.isFinite(p) || p < 0 || p > 1)
      throw new Error(`fault ${kind}: probability must be between 0 and 1, got ${p}`);
    total += p;
  }
  if (total > 1 + 1e-9) throw new Error(`faults: probabilities add up to ${total}, more than 1`);
  if (spec.slow !== undefined && (!Number.isFinite(spec.slow.ms) || spec.slow.ms < 0))
    throw new Error('fault slow: ms must be >= 0');
}

/** Draws the fault of one request (one draw per request, so a seed replays the same faults). */
export function decideFault(spec: FaultSpec, random: Random): FaultDecision {
  const roll = random.next();
  let edge = 0;
  for (const kind of FAULT_KINDS) {
    edge += probabilityOf(spec, kind);
    if (roll < edge) return kind === 'slow' ? { kind, ms: spec.slow?.ms ?? 0 } : { kind };
  }
  return { kind: 'none' };
}
