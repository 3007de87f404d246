import { describe, expect, it } from 'vitest';
import { explainUsage, suggestion } from '../../src/cli/did-you-mean.js';
import { errorMessage, runIvsync } from '../helpers/run-cli.js';

describe('suggestion', () => {
  const options = ['resources', 'from', 'to', 'json', 'since', 'log-level', 'account'];
  it.each([
    ['resource', 'resources'],
    ['resurce', 'resources'],
    ['jsn', 'json'],
    ['loglevel', 'log-level'],
    ['acount', 'account'],
    ['res', 'resources'],
    ['fro', 'from'],
    ['frobnicate', undefined],
    ['x', undefined],
    ['t', 'to'],
  ])('%s -> %s', (typed, want) => {
    expect(suggestion(typed, options)).toBe(want);
  });
});

describe('explainUsage', () => {
  const context = {
    options: ['resources', 'json', 'since'],
    commands: ['status', 'sync'],
    argv: ['sync', '--resurce', 'x', '--since-x', '3'],
  };
  it.each([
    ['Unknown argument: resurce', 'unknown option --resurce: did you mean --resources?'],
    ['Unknown arguments: since-x, sinceX', 'unknown option --since-x: did you mean --since?'],
    ['Did you mean status?', "unknown command 'statsu': did you mean status?"],
    ['Missing required argument: from', 'Missing required argument: from'],
  ])('%s', (message, want) => {
    const argv = message.startsWith('Did') ? ['statsu'] : context.argv;
    expect(explainUsage(message, { ...context, argv })).toBe(want);
  });
});

describe('through the parser', () => {
  it.each([
    [['statsu'], "unknown command 'statsu': did you mean status?"],
    [['webhooks', 'lsit'], "unknown command 'lsit': did you mean list?"],
    [['sync', '--resource', 'fingerprints'], 'unknown option --resource: did you mean --resources?'],
    [['reset', '--resurces', 'fingerprints'], 'unknown option --resurces: did you mean --resources?'],
    [['query', 'SELECT 1', '--fromat', 'csv'], 'unknown option --fromat: did you mean --format?'],
    [['status', 'extra'], "unexpected argument 'extra'"],
  ])('%j exits 2 naming what was most likely meant', async (args, message) => {
    const r = await runIvsync(args, { IVS_DB: 'sqlite:/nonexistent-dir/never/created.sqlite' });
    expect(r.code).toBe(2);
    expect(errorMessage(r.stderr)).toBe(message);
  });

  it('reset takes --resources, as every other command, and --resource still', async () => {
    for (const flag of ['--resources', '--resource']) {
      const r = await runIvsync(['reset', flag, 'photos'], { IVS_DB: 'sqlite:/nonexistent-dir/never/created.sqlite' });
      expect(r.code, flag).toBe(2);
      expect(errorMessage(r.stderr), flag).toMatch(/^--resources: unknown resource "photos"/);
    }
  });
});
