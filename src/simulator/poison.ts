import type { SessionRecord } from './session-record.js';

/*
 * Poison strings: text the service may send that no target can store as it
 * is. JSON carries U+0000 and lone UTF-16 surrogates as escapes (`\u0000`,
 * `\ud800`), which JSON.stringify writes for them, so a poisoned item is
 * valid JSON and valid UTF-8 on the wire; only the parsed strings hold them.
 */

export const NUL = '\u0000';
/** A high surrogate with no low one after it. */
export const LONE_HIGH = '\ud800';
/** A low surrogate with no high one before it. */
export const LONE_LOW = '\udfff';

/** The text field key a poisoned v1.4 or v2 authentication item gains, and its value. */
export const POISON_FIELD_KEY = `note${NUL}`;
export const POISON_FIELD_VALUE = `a${LONE_LOW}b${NUL}`;

/** `text` with `poison` put after its fourth character (or at its end). */
export function withPoison(text: string, poison: string): string {
  const at = Math.min(4, text.length);
  return `${text.slice(0, at)}${poison}${text.slice(at)}`;
}

type Json = Record<string, unknown>;

function poisonKey(parent: unknown, key: string, poison: string): void {
  if (typeof parent !== 'object' || parent === null) return;
  const value = (parent as Json)[key];
  if (typeof value === 'string') (parent as Json)[key] = withPoison(value, poison);
}

/**
 * Plants poison in a rendered item of either interface: U+0000 in the
 * customer item id, a lone high surrogate in the identifier, a lone low one
 * in the brand's display name, and a text field whose key and value hold
 * both. Ids (service_id, brand and material ids) stay clean, so the item can
 * still be fetched and compared.
 */
export function plantPoison(item: Json): void {
  const textFields = item['text_fields'];
  const properties = item['properties'] as Json | undefined;
  poisonKey(textFields, 'customer_item_id', NUL);
  poisonKey(properties, 'customer_item_id', NUL);
  poisonKey(textFields, 'identifier', LONE_HIGH);
  const brand = properties?.['brand'];
  poisonKey(brand, 'display', LONE_LOW);
  poisonKey(brand, 'name', LONE_LOW);
  if (typeof textFields === 'object' && textFields !== null)
    (textFields as Json)[POISON_FIELD_KEY] = POISON_FIELD_VALUE;
}

/** Length of the service_id a `huge_id` item is served with: more than any index entry of PostgreSQL. */
export const HUGE_ID_LENGTH = 300_000;

/** The service_id a `huge_id` item is served with: its own, padded. */
export function hugeId(serviceId: string): string {
  return serviceId.padEnd(HUGE_ID_LENGTH, 'x');
}

/** How deep the unknown key of a `deep_nesting` item nests: past PostgreSQL's stack and Node's JSON.stringify. */
export const DEEP_NESTING_LEVELS = 100_000;

/** The unknown key a `deep_nesting` item gains. */
export const DEEP_NESTING_KEY = 'nested';

/**
 * Stands for the deep list in a rendered item: JSON.stringify cannot write
 * one (it recurses), so the response text is expanded after serializing
 * (withDeepNesting). Holds U+0000 so that no real value can be mistaken for it.
 */
export const DEEP_NESTING_MARK = '\u0000deep-nesting';

const MARK_TEXT = JSON.stringify(DEEP_NESTING_MARK);

/** A response's JSON text with every DEEP_NESTING_MARK made the list it stands for. */
export function withDeepNesting(text: string): string {
  if (!text.includes(MARK_TEXT)) return text;
  return text.replaceAll(MARK_TEXT, `${'['.repeat(DEEP_NESTING_LEVELS)}${']'.repeat(DEEP_NESTING_LEVELS)}`);
}

/**
 * The copy of a `duplicate_on_page` session served just before it on its
 * page: the state it had a second earlier (not yet final, an earlier
 * last_updated_at, a lower update_counter), so that newer-never-loses has
 * something to decide.
 */
export function olderCopy(record: SessionRecord): SessionRecord {
  return {
    ...record,
    final: false,
    updatedMicros: record.createdMicros,
    updateCounter: Math.max(0, record.updateCounter - 1),
    bad: null,
  };
}
