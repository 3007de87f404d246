import { createRequire } from 'node:module';
import type CliProgress from 'cli-progress';
import type * as NodeCron from 'node-cron';
import type * as Yaml from 'yaml';
import type * as Zod from 'zod';

/*
 * Packages that most commands never reach, loaded where they are first used
 * instead of when the CLI starts: each is tens of milliseconds of module loading
 * that `status` or `--version` would pay for nothing. Each is required, so
 * they load synchronously, inside the synchronous checks that need them. The
 * bundled CLI (scripts/bundle-cli.mjs) requires `./lazy-<name>.js` instead,
 * each package bundled as an entry of its own: keep the calls as they are
 * written, `require('<name>')`, which is what the bundler looks for.
 */

const require = createRequire(import.meta.url);

/** yaml: a YAML config file, and `ivsync init`'s template. */
export function yaml(): typeof Yaml {
  return require('yaml') as typeof Yaml;
}

/** node-cron: a schedule to check, or the daemon's ticks. */
export function nodeCron(): typeof NodeCron {
  return require('node-cron') as typeof NodeCron;
}

/** zod: a config file to check, the daemon's HTTP bodies, the config reference. */
export function zod(): typeof Zod {
  return require('zod') as typeof Zod;
}

/** cli-progress: a progress bar, drawn only on a terminal (cron and the daemon write log lines instead). */
export function cliProgress(): typeof CliProgress {
  return require('cli-progress') as typeof CliProgress;
}
