import { join } from 'node:path';
import { writeConfig } from './temp-dir.js';

/** The simulator's tokens for two accounts of different owners (`startSimulator({ tokens: TWO_TOKENS })`). */
export const TWO_TOKENS = { 'tok-a': 'alice', 'tok-b': 'bob' } as const;

/**
 * A SQLite target in `dir` and the environment of a CLI run over two accounts, `a1` and `a2`, each with its own
 * token (TWO_TOKENS) and so its own bucket; `extra` adds or overrides variables.
 */
export function twoAccountEnv(
  dir: string,
  baseUrl: string,
  extra: Record<string, string> = {},
): { db: string; env: Record<string, string> } {
  const db = join(dir, 'ivsync.sqlite');
  const accounts = [
    { name: 'a1', tokenEnv: 'TOKEN_A' },
    { name: 'a2', tokenEnv: 'TOKEN_B' },
  ];
  const env = {
    IVS_BASE_URL: baseUrl,
    TOKEN_A: 'tok-a',
    TOKEN_B: 'tok-b',
    IVS_DB: `sqlite:${db}`,
    IVS_CONFIG: writeConfig(dir, { accounts }),
    ...extra,
  };
  return { db, env };
}
