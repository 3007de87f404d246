import type { IncomingMessage } from 'node:http';

export type RawBody = { ok: true; bytes: Buffer } | { ok: false; reason: 'too-large' | 'aborted' };

/**
 * The request body as bytes, up to `maxBytes`. Beyond it reading stops at
 * once (a declared Content-Length over the limit is refused before a byte is
 * read), so an oversized body costs no more memory than the limit.
 */
export function readRawBody(req: IncomingMessage, maxBytes: number): Promise<RawBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve({ ok: false, reason: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: RawBody): void => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        req.pause();
        finish({ ok: false, reason: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void =>
      finish({ ok: true, bytes: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size) });
    const onError = (): void => finish({ ok: false, reason: 'aborted' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onError);
  });
}
