import { AUTHENTICATION_RESULTS, BRANDS, FLAGS, FORM_FACTORS } from './catalog.js';
import type { IdMint } from './id-mint.js';
import type { Random } from './prng.js';
import type { SessionRecord } from './session-record.js';

/** What a caller may fix about a new session; everything else is drawn from the random source. */
export interface SessionSeed {
  owner: string;
  createdMicros: number;
  final: boolean;
  customerItemId?: string;
  resultId?: string;
  formFactor?: string;
  flag?: string | null;
}

export interface FingerprintSeed extends SessionSeed {
  mode: 'register' | 'compare';
  parentId?: string | null;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

function flagOf(random: Random): string | null {
  return random.chance(0.12) ? random.pick(FLAGS) : null;
}

function extraKeysOf(random: Random): 0 | 1 | 2 {
  const roll = random.next();
  if (roll < 0.03) return 2;
  if (roll < 0.08) return 1;
  return 0;
}

export function newCustomerItemId(random: Random, prefix: 'ORD' | 'SKU'): string {
  return `${prefix}-${pad(random.int(0, 999_999), 6)}-${String.fromCharCode(65 + random.int(0, 25))}`;
}

export function newAuthentication(random: Random, ids: IdMint, seed: SessionSeed): SessionRecord {
  const brand = random.pick(BRANDS);
  const material = random.pick(brand.materials);
  const resultId = seed.resultId ?? (random.chance(0.85) ? 'authentic' : 'unidentified');
  // A non-final session shows a provisional result; about a fifth of final ones started as something else.
  const initialResultId = seed.final && random.chance(0.2) ? random.pick(AUTHENTICATION_RESULTS) : resultId;
  const rings = brand.productGroup === 'rings';
  return {
    serviceId: ids.serviceId(),
    resource: 'authentications',
    owner: seed.owner,
    createdMicros: seed.createdMicros,
    updatedMicros: seed.final && random.chance(0.6) ? seed.createdMicros + random.int(5, 900) * 1_000_000 : null,
    updateCounter: 1,
    formFactor: seed.formFactor ?? random.pick(FORM_FACTORS),
    resultId,
    initialResultId,
    final: seed.final,
    flag: seed.flag === undefined ? flagOf(random) : seed.flag,
    customerItemId: seed.customerItemId ?? newCustomerItemId(random, 'ORD'),
    productCategory: random.chance(0.02) ? 'deprecated' : 'luxury',
    productGroup: brand.productGroup,
    brandId: brand.id,
    materialId: material.id,
    identifier:
      `${brand.id.slice(0, 2).toUpperCase()}${random.int(10, 99)} ` +
      `${String.fromCharCode(65 + random.int(0, 25))}${pad(random.int(0, 9999), 4)}`,
    styleCode: `M${pad(random.int(0, 99_999), 5)}`,
    usSize: rings ? String(random.int(8, 20) / 2) : 'OS',
    retakeRequired: resultId === 'unidentified' && random.chance(0.3),
    mode: null,
    parentId: null,
    deviceId: `dev-${pad(random.int(0, 99_999), 5)}`,
    appVersion: `4.${random.int(0, 12)}.${random.int(0, 9)}`,
    extraKeys: extraKeysOf(random),
    bad: null,
    poison: false,
  };
}

export function newFingerprint(random: Random, ids: IdMint, seed: FingerprintSeed): SessionRecord {
  const brand = random.pick(BRANDS);
  const resultId = seed.resultId ?? (seed.mode === 'register' ? 'registered' : 'match');
  return {
    serviceId: ids.serviceId(),
    resource: 'fingerprints',
    owner: seed.owner,
    createdMicros: seed.createdMicros,
    updatedMicros: null,
    updateCounter: 1,
    formFactor: seed.formFactor ?? 'microscopic',
    resultId,
    initialResultId: resultId,
    final: seed.final,
    flag: seed.flag === undefined ? flagOf(random) : seed.flag,
    customerItemId: seed.customerItemId ?? newCustomerItemId(random, 'SKU'),
    productCategory: null,
    productGroup: null,
    brandId: brand.id,
    materialId: random.pick(brand.materials).id,
    identifier: '',
    styleCode: '',
    usSize: '',
    retakeRequired: false,
    mode: seed.mode,
    parentId: seed.mode === 'compare' ? (seed.parentId ?? null) : null,
    deviceId: `dev-${pad(random.int(0, 99_999), 5)}`,
    appVersion: `4.${random.int(0, 12)}.${random.int(0, 9)}`,
    extraKeys: extraKeysOf(random),
    bad: null,
    poison: false,
  };
}
