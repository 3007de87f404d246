import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { renderConfigDoc } from './config-doc.js';

/** Writes the rendered configuration reference to `target` and returns its absolute path. */
export function writeConfigDoc(target: string): string {
  const file = resolve(target);
  writeFileSync(file, renderConfigDoc());
  return file;
}

// Run as a script (`node dist/src/config/write-config-doc.js [path]`) from the
// package root: writes docs/configuration.md unless another path is given.
const invokedPath = process.argv[1];
if (invokedPath !== undefined && import.meta.url === pathToFileURL(resolve(invokedPath)).href) {
  const file = writeConfigDoc(process.argv[2] ?? 'docs/configuration.md');
  process.stdout.write(`wrote ${file}\n`);
}
