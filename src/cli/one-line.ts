/** Longest error message the CLI prints. */
export const MESSAGE_LIMIT = 300;

// eslint-disable-next-line no-control-regex -- the control characters are what it replaces
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/**
 * A message as the CLI prints it: one line of at most MESSAGE_LIMIT
 * characters. Whatever a dependency put in an error's message (a statement
 * and its bound values, a row, a stack, a control character) stops at the
 * first line break and the limit; the store already shortens its own.
 */
export function oneLine(message: string, limit = MESSAGE_LIMIT): string {
  const line = (message.split(/\r?\n|\r/, 1)[0] ?? '').replace(CONTROL_CHARACTERS, ' ').toWellFormed().trimEnd();
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}
