import { inspect } from 'node:util';
import { expect } from 'vitest';

/** The error `promise` rejects with; fails the test when it resolves. */
export async function caught(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/** `secret` is in no rendering of `error` (message, stack, inspect, JSON) nor of its causes. */
export function expectNoSecret(error: Error, secret: string): void {
  const renderings = [
    String(error),
    error.message,
    error.stack ?? '',
    inspect(error, { showHidden: true, depth: Number.POSITIVE_INFINITY, getters: true }),
    JSON.stringify(error),
    JSON.stringify(Object.getOwnPropertyDescriptors(error)),
  ];
  for (const text of renderings) expect(text).not.toContain(secret);
  if (error.cause instanceof Error) expectNoSecret(error.cause, secret);
}
