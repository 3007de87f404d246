/**
 * The wait a 429's `Retry-After` asks for, in milliseconds, or undefined when
 * there is none to read. The service counts in seconds and may send a
 * fraction ("0.4"); an HTTP date is read too (a date already past asks for
 * no wait: 0), against `now`, the wall clock in milliseconds since the epoch.
 * Fractions count, so the bucket pauses exactly as long as the service said.
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  // An asctime date carries no zone, and means UTC (RFC 9110, section 5.6.7).
  // An HTTP date names its weekday and month; anything else is not one.
  if (!/[A-Za-z]/.test(text)) return undefined;
  const asctime = /^\w{3} \w{3} [\d ]\d \d{2}:\d{2}:\d{2} \d{4}$/.test(text);
  const at = Date.parse(asctime ? `${text} GMT` : text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
