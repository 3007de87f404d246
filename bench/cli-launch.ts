import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's launcher (`bin/ivsync`), which a user's `ivsync` runs: it sets the allocator up and execs Node on the CLI. */
export const LAUNCHER = fileURLToPath(new URL('../../bin/ivsync', import.meta.url));

/**
 * How a benchmark starts the CLI: as a user does, through the launcher, so
 * that what it measures includes what the launcher sets. `preload` modules
 * (the usage reporter) go in through NODE_OPTIONS, which the launcher passes
 * on; the Node running the benchmark comes first on the PATH.
 */
export function launch(args: readonly string[], env: Record<string, string | undefined>, preload: readonly string[] = []): { file: string; args: string[]; env: Record<string, string | undefined> } {
  const nodeOptions = [env.NODE_OPTIONS, ...preload.map((p) => `--import="${p}"`)].filter(Boolean).join(' ');
  const path = [dirname(process.execPath), env.PATH ?? process.env.PATH].filter(Boolean).join(':');
  return { file: LAUNCHER, args: [...args], env: { ...env, PATH: path, ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) } };
}
