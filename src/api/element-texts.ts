/*
 * The text of each item of a response (the elements of a page's item array, or the one item of a by-id answer), sliced
 * from the body as received. It becomes the `raw` column: the item exactly as the service sent it, and the normalizer
 * does not serialize the parsed item again (scanning is about a third of the cost of JSON.stringify). The body has
 * already parsed as JSON, so the scan only has to find boundaries; anything it does not expect makes it give up, and
 * the caller serializes instead.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/** From an opening quote to just after its closing quote; -1 if none. */
function skipString(text: string, at: number): number {
  for (let from = at + 1; ;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** From the first character of a value to just after it; -1 if it does not end. */
function skipValue(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return skipString(text, at);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0;
    while (at < text.length) {
      const c = text.charCodeAt(at);
      if (c === QUOTE) {
        at = skipString(text, at);
        if (at < 0) return -1;
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
      else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return at + 1;
      at++;
    }
    return -1;
  }
  // A number, true, false or null.
  while (at < text.length) {
    const c = text.charCodeAt(at);
    if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isSpace(c)) break;
    at++;
  }
  return at;
}

/** The elements of the array that starts at `at`, and the index after it; null if malformed. */
function arrayElements(text: string, at: number): { texts: string[]; end: number } | null {
  const texts: string[] = [];
  at = skipSpace(text, at + 1);
  if (text.charCodeAt(at) === CLOSE_ARRAY) return { texts, end: at + 1 };
  for (;;) {
    const start = at;
    at = skipValue(text, at);
    if (at < 0) return null;
    texts.push(text.slice(start, at));
    at = skipSpace(text, at);
    const c = text.charCodeAt(at);
    if (c === CLOSE_ARRAY) return { texts, end: at + 1 };
    if (c !== COMMA) return null;
    at = skipSpace(text, at + 1);
  }
}

/** Reads one member's value at `at`: what it holds and the index after it, or null if malformed. */
type ValueReader<T> = (text: string, at: number) => { value: T; end: number } | null;

/**
 * The value of the top-level member `key` of the JSON object `body`, read by
 * `read` when its first character is `opening`; null when the body is not an
 * object with such a member. Like JSON.parse, the last of two members with
 * one name counts.
 */
function lastMember<T>(body: string, key: string, opening: number, read: ValueReader<T>): T | null {
  let at = skipSpace(body, 0);
  if (body.charCodeAt(at) !== OPEN_OBJECT) return null;
  at = skipSpace(body, at + 1);
  if (body.charCodeAt(at) === CLOSE_OBJECT) return null;
  let found: T | null = null;
  for (;;) {
    if (body.charCodeAt(at) !== QUOTE) return null;
    const nameEnd = skipString(body, at);
    if (nameEnd < 0) return null;
    const quoted = body.slice(at, nameEnd);
    const name = quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
    at = skipSpace(body, nameEnd);
    if (body.charCodeAt(at) !== COLON) return null;
    at = skipSpace(body, at + 1);
    if (name === key && body.charCodeAt(at) === opening) {
      const member = read(body, at);
      if (member === null) return null;
      found = member.value;
      at = member.end;
    } else {
      if (name === key) found = null;
      at = skipValue(body, at);
      if (at < 0) return null;
    }
    at = skipSpace(body, at);
    const c = body.charCodeAt(at);
    if (c === CLOSE_OBJECT) return found;
    if (c !== COMMA) return null;
    at = skipSpace(body, at + 1);
  }
}

const readArrayElements: ValueReader<string[]> = (text, at) => {
  const array = arrayElements(text, at);
  return array === null ? null : { value: array.texts, end: array.end };
};

const readObjectText: ValueReader<string> = (text, at) => {
  const end = skipValue(text, at);
  return end < 0 ? null : { value: text.slice(at, end), end };
};

/**
 * The text of each element of the array member `key` of the JSON object
 * `body`, or null when the body is not an object with such an array.
 */
export function arrayElementTexts(body: string, key: string): string[] | null {
  return lastMember(body, key, OPEN_ARRAY, readArrayElements);
}

/** The text of the object member `key` of the JSON object `body` (the `item` of a by-id answer), or null. */
export function objectMemberText(body: string, key: string): string | null {
  return lastMember(body, key, OPEN_OBJECT, readObjectText);
}

/** The items' texts when the scan finds exactly `count` of them, else undefined (the caller serializes). */
export function itemTexts(body: string | undefined, key: string, count: number): string[] | undefined {
  if (body === undefined) return undefined;
  const texts = arrayElementTexts(body, key);
  return texts !== null && texts.length === count ? texts : undefined;
}
