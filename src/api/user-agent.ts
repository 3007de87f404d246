import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `ivsync/<version>`, the version read from the package's own package.json.
 * Searched upwards from this module because the file sits at a different
 * depth in the sources (src/api) and in the build (dist/src/api).
 */
export function defaultUserAgent(moduleUrl: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    try {
      const manifest: unknown = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (typeof manifest === 'object' && manifest !== null && 'name' in manifest && manifest.name === 'ivsync') {
        const version = 'version' in manifest && typeof manifest.version === 'string' ? manifest.version : '0.0.0';
        return `ivsync/${version}`;
      }
    } catch {
      // No (readable) package.json at this level; keep climbing.
    }
    const parent = dirname(dir);
    if (parent === dir) return 'ivsync/0.0.0';
    dir = parent;
  }
}
