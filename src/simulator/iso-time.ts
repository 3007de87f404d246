/**
 * Integer microseconds since the epoch -> ISO 8601 UTC with exactly six fraction digits, as the service shows times.
 */
export function isoFromMicros(micros: number): string {
  const millis = Math.floor(micros / 1000);
  const rest = micros - millis * 1000;
  const iso = new Date(millis).toISOString();
  return `${iso.slice(0, 23)}${String(rest).padStart(3, '0')}Z`;
}

/** The service's `timestamp.epoch`: seconds with the fractional part. */
export function epochFromMicros(micros: number): number {
  return micros / 1e6;
}
