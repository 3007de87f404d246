import type { z } from 'zod';
import { quotedValue, shownValue } from './quoted-value.js';

/** Members whose values are secrets: a message names them, never shows them. */
const SECRET_PATHS = [/^webhooks\.secrets?(\.|$)/];

const ARTICLE: Record<string, string> = {
  number: 'a number',
  int: 'an integer',
  string: 'a string',
  boolean: 'true or false',
  object: 'a mapping of members',
  array: 'a list',
};

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return typeof value;
}

/** The value at `path` inside the parsed file, for the message. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function expected(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${ARTICLE[issue.expected] ?? issue.expected}`;
    case 'too_small':
    case 'too_big': {
      const bound =
        issue.code === 'too_small'
          ? issue.inclusive
            ? 'at least'
            : 'more than'
          : issue.inclusive
            ? 'at most'
            : 'less than';
      const limit = String(issue.code === 'too_small' ? issue.minimum : issue.maximum);
      if (issue.origin === 'array') return `expected ${bound} ${limit} entr${limit === '1' ? 'y' : 'ies'}`;
      if (issue.origin === 'string') return `expected ${bound} ${limit} character${limit === '1' ? '' : 's'}`;
      return `expected a number ${bound} ${limit}`;
    }
    case 'invalid_value': {
      // zod lists an enum's values in object-key order, where '2' comes before '1.4'.
      const values = issue.values.map((v) => String(v));
      if (values.every((v) => /^\d/.test(v))) values.sort((a, b) => Number(a) - Number(b));
      return `expected one of ${values.join(', ')}`;
    }
    case 'invalid_format':
      if (issue.format === 'url') return 'expected a URL (https://...)';
      if (issue.format === 'starts_with')
        return `expected a path starting with '${(issue as { prefix?: string }).prefix ?? '/'}'`;
      return `expected ${issue.message}`;
    case 'invalid_union': {
      // What each alternative wanted: its type, or the member it missed.
      const wanted = issue.errors.map((branch) => {
        const first = branch[0];
        if (first === undefined) return 'something else';
        if (first.path.length > 0) return `a mapping with ${String(first.path[0])}`;
        return first.code === 'invalid_type'
          ? (ARTICLE[first.expected] ?? first.expected)
          : expected(first).replace(/^expected /, '');
      });
      return `expected ${[...new Set(wanted)].join(' or ')}`;
    }
    default:
      return issue.message;
  }
}

/**
 * One zod issue as `key.path` and what was expected and got: the key path is the issue's own, the value read from the
 * file.
 */
export function describeIssue(
  issue: z.core.$ZodIssue,
  root: unknown,
): { key: string; problem: string; value: unknown } {
  const key = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const where = key === '' ? '' : `${key}.`;
    return {
      key: `${where}${issue.keys[0]}`,
      problem:
        `unknown member${issue.keys.length > 1 ? ` (also ${issue.keys.slice(1).join(', ')})` : ''}: check its ` +
        `spelling and section`,
      value: undefined,
    };
  }
  const value = valueAt(root, issue.path);
  const secret = SECRET_PATHS.some((re) => re.test(key));
  // Any member may hold a secret pasted into the wrong place: a long value is described, never quoted.
  const got = value === undefined ? 'got nothing' : secret ? `got ${kindOf(value)}` : `got ${quotedValue(value)}`;
  return { key, problem: `${expected(issue)}, ${got}`, value: secret ? undefined : shownValue(value) };
}
