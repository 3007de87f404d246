import { InputError, type InputSource } from '../errors.js';
import { RESOURCES, isResourceName, type ResourceName } from './constants.js';
import { quotedValue, shownValue } from './quoted-value.js';

/** A comma-separated list of resources (`authentications,fingerprints`), each once, in the order given. */
export function parseResources(text: string, source: InputSource): ResourceName[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) {
    throw new InputError('BAD_RESOURCE', `is empty: name ${RESOURCES.join(', ')} or both`, { source, value: text });
  }
  for (const name of names) {
    if (!isResourceName(name)) {
      throw new InputError(
        'BAD_RESOURCE',
        `unknown resource ${quotedValue(name)} (expected ${RESOURCES.join(' or ')})`,
        { source, value: shownValue(text) },
      );
    }
  }
  return [...new Set(names as ResourceName[])];
}
