import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/cli/logger.js';
import { RequestProgress } from '../../src/cli/request-progress.js';

function terminal(): { stream: PassThrough & { isTTY?: boolean; columns?: number }; text: () => string } {
  const stream: PassThrough & { isTTY?: boolean; columns?: number } = new PassThrough();
  stream.isTTY = true;
  stream.columns = 120;
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

describe('verify progress', () => {
  it('on a terminal: requests sent against the budget, never past it', () => {
    const out = terminal();
    const logger = createLogger({ level: 'silent', destination: new PassThrough(), bindings: {} });
    const progress = new RequestProgress({ tty: true, stream: out.stream, logger, budget: 4, label: 'verify' });
    for (let i = 0; i < 5; i++) progress.onRequest();
    progress.stop();
    expect(progress.requests).toBe(5);
    expect(out.text()).toContain('4 of at most 4 requests');
    expect(out.text()).not.toContain('5 of at most');
  });
});
