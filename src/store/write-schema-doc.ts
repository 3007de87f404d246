import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { renderSchemaDoc } from './schema-doc.js';

/** Writes the rendered schema page to `target` and returns its absolute path. */
export function writeSchemaDoc(target: string): string {
  const file = resolve(target);
  writeFileSync(file, renderSchemaDoc());
  return file;
}

// Run as a script (`node dist/src/store/write-schema-doc.js [path]`) from the
// package root: writes docs/schema.md unless another path is given.
const invokedPath = process.argv[1];
if (invokedPath !== undefined && import.meta.url === pathToFileURL(resolve(invokedPath)).href) {
  const file = writeSchemaDoc(process.argv[2] ?? 'docs/schema.md');
  process.stdout.write(`wrote ${file}\n`);
}
