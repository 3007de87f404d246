const MAX_LENGTH = 300;

/**
 * The service's explanation in an error body, for a one-line message. The
 * spec does not show the error body's shape, so common spellings are tried
 * and anything else is shown as compact JSON or text, cut to a readable length.
 */
export function serviceMessage(body: unknown): string {
  const text = pick(body)?.replace(/\s+/g, ' ').trim();
  if (text === undefined || text === '') return 'no explanation given';
  return text.length > MAX_LENGTH ? `${text.slice(0, MAX_LENGTH - 3)}...` : text;
}

function pick(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (body === null || typeof body !== 'object') return body === undefined ? undefined : String(body);
  if (Array.isArray(body))
    return body
      .map((entry) => pick(entry) ?? '')
      .filter((s) => s !== '')
      .join('; ');
  const record = body as Record<string, unknown>;
  for (const key of ['message', 'detail', 'error_description', 'error', 'errors']) {
    const found = record[key];
    if (found !== undefined && found !== null) return pick(found);
  }
  return JSON.stringify(body);
}
