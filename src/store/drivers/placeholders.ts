/** `?, ?, ?` for `count` placeholders. */
export function placeholders(count: number): string {
  return new Array<string>(count).fill('?').join(', ');
}
