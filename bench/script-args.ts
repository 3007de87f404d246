import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Whether the module at `moduleUrl` is the script node was started with (not imported by bench/run.ts). */
export function isEntryPoint(moduleUrl: string): boolean {
  const invoked = process.argv[1];
  return invoked !== undefined && moduleUrl === pathToFileURL(resolve(invoked)).href;
}

/** The number given after `name` (`--items 5000`) in `args`, if the flag is there. */
export function numberFlag(args: readonly string[], name: string): number | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : undefined;
}
