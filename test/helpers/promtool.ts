import { spawnSync } from 'node:child_process';

/** Set by .ci/run: there, a missing promtool fails the suites instead of skipping them. */
export const REQUIRE_PROMTOOL = process.env.IVS_REQUIRE_PROMTOOL === '1';

/** promtool, from Debian's `prometheus` package or PROMTOOL; undefined when it does not run. */
export const PROMTOOL: string | undefined = (() => {
  const command = process.env.PROMTOOL ?? 'promtool';
  const probe = spawnSync(command, ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? command : undefined;
})();

/**
 * Call at the top of a file with promtool tests: warns visibly that they are
 * skipped, or, under IVS_REQUIRE_PROMTOOL=1, fails the file.
 */
export function announcePromtool(what: string): void {
  if (PROMTOOL !== undefined) return;
  const problem = 'promtool is not installed (apt-get install prometheus)';
  if (REQUIRE_PROMTOOL) throw new Error(`${problem}, and IVS_REQUIRE_PROMTOOL=1 forbids skipping the ${what}`);
  console.warn(`${problem}: the ${what} are skipped`);
}

/** Runs promtool with `args` (and `input` on stdin): its exit code and what it printed. */
export function promtool(
  args: readonly string[],
  options: { cwd?: string; input?: string } = {},
): { code: number; output: string } {
  const run = spawnSync(PROMTOOL!, args, { cwd: options.cwd, input: options.input, encoding: 'utf8' });
  return { code: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
}
