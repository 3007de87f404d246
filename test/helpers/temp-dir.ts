import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

/** A fresh directory removed after the test. */
export function useTempDir(): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'ivsync-test-'));
    dirs.push(dir);
    return dir;
  };
}

/** Writes a config file for fast test crawls and returns its path. */
export function writeConfig(dir: string, config: Record<string, unknown> = {}): string {
  const path = join(dir, 'ivsync.json');
  const base = {
    crawl: { windowSeconds: 30 * 86_400, concurrency: 8, overlapSeconds: 86_400 },
    http: { timeoutMs: 5_000, retryBaseMs: 5, retryMaxMs: 50, retryLimit: 12 },
  };
  writeFileSync(path, JSON.stringify({ ...base, ...config }));
  return path;
}

/**
 * The environment of a CLI run against `simulatorUrl` into a SQLite file in `dir` (its path: `db`), with a config
 * file for fast test crawls (`config` over the base) and the client's own rate.
 */
export function sqliteCliEnv(
  simulatorUrl: string,
  dir: string,
  config: Record<string, unknown> = {},
  rate = 5000,
): { db: string; env: Record<string, string> } {
  const db = join(dir, 'ivsync.sqlite');
  const env = {
    IVS_BASE_URL: simulatorUrl,
    IVS_API_TOKEN: 'test-token',
    IVS_DB: `sqlite:${db}`,
    IVS_CONFIG: writeConfig(dir, config),
    IVS_RATE: String(rate),
  };
  return { db, env };
}
