import type { IdMint } from './id-mint.js';
import type { Random } from './prng.js';
import { newAuthentication, newFingerprint } from './session-factory.js';
import type { SessionRecord } from './session-record.js';

export interface GenerationPlan {
  owner: string;
  count: number;
  /** Created times fall in [fromSec, toSec). */
  fromSec: number;
  toSec: number;
  integerEpochShare: number;
  nonFinalShare: number;
  /** Share of sessions sent with poison strings (see poison.ts). */
  poisonShare: number;
  /** Register sessions of another owner: a few compare sessions point at them (the partial-parent case). */
  foreignRegisters: readonly SessionRecord[];
}

/** Share of sessions that are fingerprints (the rest are authentications). */
const FINGERPRINT_SHARE = 0.3;
/** Share of authentications that reuse an earlier customer item id (the lookup rule must pick among them). */
const REPEATED_ITEM_SHARE = 0.06;
const FOREIGN_PARENT_SHARE = 0.03;

function drawMicros(random: Random, plan: GenerationPlan): number {
  const span = (plan.toSec - plan.fromSec) * 1e6;
  const micros = plan.fromSec * 1e6 + Math.floor(random.next() * span);
  // Whole seconds land exactly on the integer window edges a crawler asks for.
  return random.chance(plan.integerEpochShare) ? Math.floor(micros / 1e6) * 1e6 : micros;
}

/** The sessions of one owner, in no particular order. */
export function generateSessions(random: Random, ids: IdMint, plan: GenerationPlan): SessionRecord[] {
  const fingerprintCount = Math.round(plan.count * FINGERPRINT_SHARE);
  const out: SessionRecord[] = [];
  const customerItemIds: string[] = [];
  for (let i = 0; i < plan.count - fingerprintCount; i++) {
    const reuse = customerItemIds.length > 0 && random.chance(REPEATED_ITEM_SHARE);
    const record = newAuthentication(random, ids, {
      owner: plan.owner,
      createdMicros: drawMicros(random, plan),
      final: !random.chance(plan.nonFinalShare),
      ...(reuse ? { customerItemId: random.pick(customerItemIds) } : {}),
    });
    customerItemIds.push(record.customerItemId);
    out.push(record);
  }

  // Fingerprints are made in time order so that a compare session points at an earlier registration.
  const times: number[] = [];
  for (let i = 0; i < fingerprintCount; i++) times.push(drawMicros(random, plan));
  times.sort((a, b) => a - b);
  const registers: SessionRecord[] = [];
  for (const createdMicros of times) {
    const final = !random.chance(plan.nonFinalShare);
    if (registers.length === 0 || random.chance(0.45)) {
      const record = newFingerprint(random, ids, { owner: plan.owner, createdMicros, final, mode: 'register' });
      registers.push(record);
      out.push(record);
      continue;
    }
    const foreign = plan.foreignRegisters.length > 0 && random.chance(FOREIGN_PARENT_SHARE);
    const parent = foreign ? random.pick(plan.foreignRegisters) : random.pick(registers);
    out.push(
      newFingerprint(random, ids, {
        owner: plan.owner,
        createdMicros,
        final,
        mode: 'compare',
        parentId: parent.serviceId,
        ...(random.chance(0.9) ? { customerItemId: parent.customerItemId } : {}),
      }),
    );
  }
  // Drawn last, from this owner's own stream: without poison the world is the same as ever.
  if (plan.poisonShare > 0) for (const record of out) record.poison = random.chance(plan.poisonShare);
  return out;
}
