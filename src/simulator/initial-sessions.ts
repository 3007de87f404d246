import { generateSessions } from './generate-sessions.js';
import type { IdMint } from './id-mint.js';
import type { Random } from './prng.js';
import type { SessionRecord } from './session-record.js';

export interface InitialSessionsPlan {
  /** Sessions generated for each token owner. */
  sessions: number;
  /** Sessions generated for `otherOwner`. */
  otherOwnerSessions: number;
  fromSec: number;
  toSec: number;
  /** token -> owner username. */
  tokens: Readonly<Record<string, string>>;
  /** The owner with no token in the default setup; removeAccess moves sessions to it. */
  otherOwner: string;
  integerEpochShare: number;
  nonFinalShare: number;
  /** Share of generated sessions sent with poison strings (see poison.ts). @default 0 */
  poisonShare?: number;
}

/**
 * The sessions a world starts with: the other owner's first, then each token
 * owner's, in generation order. The other owner's registrations go first so that
 * a few compare sessions of the token owners can point at them (partial parents).
 * Each owner draws from its own fork of `random`, in this order, so a seed gives
 * the same world.
 */
export function initialSessions(random: Random, ids: IdMint, options: InitialSessionsPlan): SessionRecord[] {
  const plan = {
    fromSec: options.fromSec,
    toSec: options.toSec,
    integerEpochShare: options.integerEpochShare,
    nonFinalShare: options.nonFinalShare,
    poisonShare: options.poisonShare ?? 0,
  };
  const other = generateSessions(random.fork(), ids, {
    ...plan,
    owner: options.otherOwner,
    count: options.otherOwnerSessions,
    foreignRegisters: [],
  });
  const foreignRegisters = other.filter((r) => r.mode === 'register');
  const all: SessionRecord[][] = [other];
  for (const owner of new Set(Object.values(options.tokens))) {
    if (owner === options.otherOwner) continue;
    all.push(generateSessions(random.fork(), ids, { ...plan, owner, count: options.sessions, foreignRegisters }));
  }
  return all.flat();
}
