// Stateless between calls: decode() is never given { stream: true }.
const DECODER = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The bytes as text, or undefined when they are not valid UTF-8. A lenient
 * decode would put U+FFFD in place of the bad bytes and the stored body would
 * no longer be what the service signed. A byte order mark stays in the text,
 * as Buffer#toString keeps it, so such a body is still not JSON.
 */
export function strictUtf8(bytes: Uint8Array): string | undefined {
  try {
    return DECODER.decode(bytes);
  } catch {
    return undefined;
  }
}
