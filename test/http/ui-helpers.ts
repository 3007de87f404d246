import { spawnIvsync, type Child } from '../helpers/run-cli.js';
import { until } from '../helpers/wait.js';

/** `ivsync ui` as a child process on a free port, and the URL of its page. */
export async function startUi(
  env: Record<string, string>,
  args: readonly string[] = [],
): Promise<{ child: Child; url: string }> {
  const child = spawnIvsync(['ui', '--port', '0', ...args], env);
  let exited = false;
  void child.exited.then(() => (exited = true));
  const url = await until(
    () => {
      const found = /status page at (http:\/\/\S+\/) /.exec(child.stdout())?.[1];
      if (found === undefined && exited) throw new Error(`ivsync ui exited before serving: ${child.stderr()}`);
      return found;
    },
    30_000,
    'ivsync ui serving',
  );
  return { child, url };
}
