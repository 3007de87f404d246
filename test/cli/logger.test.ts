import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/cli/logger.js';

function stream(tty: boolean): { destination: PassThrough & { isTTY?: boolean }; text: () => string } {
  const destination: PassThrough & { isTTY?: boolean } = new PassThrough();
  if (tty) destination.isTTY = true;
  const chunks: Buffer[] = [];
  destination.on('data', (c: Buffer) => chunks.push(c));
  return { destination, text: () => Buffer.concat(chunks).toString('utf8') };
}

const plans = Array.from({ length: 12 }, (_, i) => ({
  account: 'default',
  resource: i % 2 ? 'fingerprints' : 'authentications',
  windows: 13,
  todo: i,
  resumed: 0,
}));

describe('log records', () => {
  it('off a terminal: one JSON object per line, level by name, ISO time from the injected clock, the run id', () => {
    const out = stream(false);
    const logger = createLogger({
      level: 'debug',
      destination: out.destination,
      bindings: { run: 'abcd1234' },
      clock: () => Date.UTC(2026, 0, 2, 3, 4, 5, 678),
    });
    logger.info({ plans }, 'backfill plan');
    logger.warn({ token: 'tok_secret_123' }, 'careful');
    const records = out
      .text()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      level: 'info',
      time: '2026-01-02T03:04:05.678Z',
      run: 'abcd1234',
      msg: 'backfill plan',
    });
    expect(records[1]).toMatchObject({ level: 'warn', token: '[redacted]' });
  });

  it('on a terminal: a record is one line, however many fields it has', () => {
    const out = stream(true);
    const logger = createLogger({ level: 'info', destination: out.destination, bindings: { run: 'abcd1234' } });
    logger.info({ plans }, 'backfill plan');
    const lines = out.text().trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('backfill plan');
  });

  it('on a terminal: each record its own line, with its short fields and without its lists', () => {
    const out = stream(true);
    const logger = createLogger({ level: 'info', destination: out.destination, bindings: { run: 'abcd1234' } });
    logger.info({ command: 'sync', requests: 12, outcomes: plans }, 'sync finished');
    logger.warn({ lease: 'account:default' }, 'waiting for the lease');
    const lines = out.text().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/sync finished command=sync requests=12/);
    expect(lines[0]).not.toMatch(/outcomes|authentications|\{/);
    expect(lines[1]).toMatch(/waiting for the lease lease=account:default/);
  });

  it('on a terminal at debug level: every field stays', () => {
    const out = stream(true);
    const logger = createLogger({ level: 'debug', destination: out.destination, bindings: {} });
    logger.debug({ plans }, 'backfill plan');
    expect(out.text()).toContain('fingerprints');
  });
});
