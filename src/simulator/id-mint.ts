import type { Random } from './prng.js';

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/**
 * The `i`-th of a sequence of distinct service ids, spread over the alphabet
 * as random ones are, with nothing kept: for loads of millions of sessions
 * (bench/duckdb-growth.ts), where a set of every id handed out would weigh
 * more than what is measured. Distinct for every `i` below 2^48.
 */
export function spreadServiceId(i: number): string {
  let x = (BigInt(i) * 0x9e3779b97f4a7c15n) & 0xffffffffffffn;
  let id = '';
  for (let k = 0; k < 10; k++) {
    id += ALPHABET[Number(x % 32n)];
    x /= 32n;
  }
  return id;
}

/** Hands out unique service ids and UUIDs drawn from a seeded source. */
export class IdMint {
  readonly #random: Random;
  readonly #used = new Set<string>();

  constructor(random: Random) {
    this.#random = random;
  }

  serviceId(): string {
    for (;;) {
      const codes: number[] = [];
      for (let i = 0; i < 10; i++) codes.push(ALPHABET.charCodeAt(Math.floor(this.#random.next() * ALPHABET.length)));
      const id = String.fromCharCode(...codes);
      if (!this.#used.has(id)) {
        this.#used.add(id);
        return id;
      }
    }
  }

  /** A version 4 UUID (webhooks, domains). */
  uuid(): string {
    let hex = '';
    for (let i = 0; i < 32; i++) hex += Math.floor(this.#random.next() * 16).toString(16);
    const variant = ((parseInt(hex[16] as string, 16) & 0x3) | 0x8).toString(16);
    return (
      `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-` +
      `${hex.slice(20, 32)}`
    );
  }
}
