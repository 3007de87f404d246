import type { SimResource } from './session-record.js';

/** What a test asks of a session it adds to the world; every field has a default. */
export interface NewSession {
  /** @default 'authentications' */
  resource?: SimResource;
  /** @default the owner of 'test-token' (or the first token) */
  owner?: string;
  /** Created time, epoch seconds (fractions allowed). @default now */
  epoch?: number;
  /** Fingerprints only. @default 'register' */
  mode?: 'register' | 'compare';
  /** Compare sessions: the registration compared against. @default the owner's latest registration */
  parentId?: string;
  /** @default true */
  final?: boolean;
  resultId?: string;
  customerItemId?: string;
  formFactor?: string;
  flag?: string | null;
  /** Sent with strings no target can store as they are (see poison.ts). @default false */
  poison?: boolean;
}
