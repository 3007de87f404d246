import { createHash } from 'node:crypto';

/** Who owns sessions, webhooks and domains. Every user is the one member of its organization. */
export interface Account {
  readonly username: string;
  readonly organizationName: string;
  /** v2 identifiers (the v2 interface names owners by id, not by name). */
  readonly organizationId: string;
  readonly userId: string;
}

const shortHash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 12);

/** Cheap enough for the filter loop of a search (no hashing). */
export function organizationNameOf(username: string): string {
  return `${username.charAt(0).toUpperCase()}${username.slice(1)} Resale`;
}

export function accountOf(username: string): Account {
  return {
    username,
    organizationName: organizationNameOf(username),
    organizationId: `org_${shortHash(`org:${username}`)}`,
    userId: `usr_${shortHash(`user:${username}`)}`,
  };
}
