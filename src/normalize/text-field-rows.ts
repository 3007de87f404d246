import type { JsonObject } from './field-readers.js';
import type { TextFieldRow } from './rows.js';

/**
 * Text fields are a free-form map. A value that is not a string (the service
 * does not promise strings in v2) is kept as its JSON text rather than
 * rejected, in session_text_fields and in the flattened columns alike.
 */
export function textFieldText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return null;
  return JSON.stringify(value);
}

/** One `session_text_fields` row per key of the map. */
export function textFieldRows(serviceId: string, textFields: JsonObject | null): TextFieldRow[] {
  const rows: TextFieldRow[] = [];
  if (textFields === null) return rows;
  for (const key in textFields) {
    rows.push({ service_id: serviceId, key, value: textFieldText(textFields[key]) });
  }
  return rows;
}
