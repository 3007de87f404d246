import type { Argv } from 'yargs';
import { RESOURCES } from '../../config/constants.js';
import type { GlobalArgs } from '../command.js';

/** `--resources`, resolved by the config loader (flag > IVS_RESOURCES > crawl.resources). */
export function withResources(yargs: Argv<GlobalArgs>): Argv<GlobalArgs> {
  return yargs.option('resources', {
    type: 'string',
    describe: `comma-separated: ${RESOURCES.join(',')} [env IVS_RESOURCES] (default: crawl.resources, else both)`,
  });
}
