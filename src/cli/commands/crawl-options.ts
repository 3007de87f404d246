import type { Argv } from 'yargs';
import type { ResourceName } from '../../config/config.js';
import { UserError } from '../../errors.js';
import type { GlobalArgs } from '../command.js';

const RESOURCES: readonly ResourceName[] = ['authentications', 'fingerprints'];

export function withResources(yargs: Argv<GlobalArgs>): Argv<GlobalArgs> {
  return yargs.option('resources', {
    type: 'string',
    describe: 'comma-separated: authentications,fingerprints (default: the config, else both)',
  });
}

export function parseResources(text: string | undefined, fallback: readonly ResourceName[]): ResourceName[] {
  if (text === undefined) return [...fallback];
  const names = text.split(',').map((s) => s.trim()).filter(Boolean);
  for (const name of names) {
    if (!RESOURCES.includes(name as ResourceName)) {
      throw new UserError('BAD_RESOURCE', `--resources: unknown resource '${name}' (expected ${RESOURCES.join(' or ')})`);
    }
  }
  if (names.length === 0) throw new UserError('BAD_RESOURCE', '--resources is empty');
  return names as ResourceName[];
}
