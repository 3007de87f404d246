import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * A value that must never reach output, logs, errors or the database (the API
 * token, webhook secrets). Every way of turning it into text yields
 * `[redacted]`; only `reveal()` gives the value, and only the code that puts it
 * on the wire calls it.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  get length(): number {
    return this.#value.length;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
