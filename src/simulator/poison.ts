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
  if (typeof textFields === 'object' && textFields !== null) (textFields as Json)[POISON_FIELD_KEY] = POISON_FIELD_VALUE;
}
