/**
 * Thrown by the field readers when an item has a known field of the wrong type.
 * The normalizer turns it into a rejected row; it never leaves src/normalize.
 * The message is the row's `reason`: the JSON path, what was expected and what
 * came, e.g. `timestamp.epoch: expected a number, got string`.
 */
export class ItemShapeError extends Error {
  readonly path: string;

  constructor(path: string, expected: string, got: string) {
    super(`${path}: expected ${expected}, got ${got}`);
    this.name = 'ItemShapeError';
    this.path = path;
  }

  /** For a value of the wrong type: names its JSON type. */
  static wrongType(path: string, expected: string, value: unknown): ItemShapeError {
    return new ItemShapeError(path, expected, jsonTypeOf(value));
  }

  /** For a value of the right type but not an allowed one: quotes it (shortened). */
  static wrongValue(path: string, expected: string, value: unknown): ItemShapeError {
    return new ItemShapeError(path, expected, quote(value));
  }
}

export function jsonTypeOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const QUOTE_LIMIT = 60;

function quote(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}...` : text;
}
