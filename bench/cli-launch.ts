import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's bin (`bin/ivsync.js`), which a user's `ivsync` runs. */
export const LAUNCHER = fileURLToPath(new URL('../../bin/ivsync.js', import.meta.url));

/**
 * How a benchmark starts the CLI: as a deployment does, through the package's
 * bin with MALLOC_ARENA_MAX=2 as the Dockerfile and the systemd unit set it
 * (unless the caller's environment sets it), so the memory it measures is
 * what a deployment sees. `preload` modules (the usage reporter) go in
 * through NODE_OPTIONS; the Node running the benchmark comes first on the PATH.
 */
export function launch(
  args: readonly string[],
  env: Record<string, string | undefined>,
  preload: readonly string[] = [],
): { file: string; args: string[]; env: Record<string, string | undefined> } {
  const nodeOptions = [env.NODE_OPTIONS, ...preload.map((p) => `--import="${p}"`)].filter(Boolean).join(' ');
  const path = [dirname(process.execPath), env.PATH ?? process.env.PATH].filter(Boolean).join(':');
  return {
    file: LAUNCHER,
    args: [...args],
    env: {
      ...env,
      MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? '2',
      PATH: path,
      ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
    },
  };
}
