import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  SQLITE_MIN_NODE,
  unsupportedNode,
  UnsupportedNodeError,
  type NodeVersions,
} from '../../src/store/drivers/sqlite/node-support.js';
import { SqliteDriver } from '../../src/store/drivers/sqlite/sqlite-driver.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();

describe('which Node runs the SQLite driver (better-sqlite3 13 needs Node-API 10)', () => {
  // Node-API versions as each release reports them in process.versions.napi.
  const cases: Array<[string, NodeVersions, boolean]> = [
    ['20.20.2, past its end of life', { node: '20.20.2', napi: '9' }, false],
    ['22.13.1, the last 22 before Node-API 10', { node: '22.13.1', napi: '9' }, false],
    ['22.14.0, the first with Node-API 10', { node: '22.14.0', napi: '10' }, true],
    ['24.21.0, the active LTS', { node: '24.21.0', napi: '10' }, true],
    ['a later Node-API', { node: '26.10.0', napi: '11' }, true],
    ['a Node built without Node-API', { node: '22.23.3' }, false],
    ['a version that is not a number', { node: '22.23.3', napi: 'x' }, false],
  ];
  it.each(cases)('%s', (_name, versions, runs) => {
    const reason = unsupportedNode(versions);
    if (runs) {
      expect(reason).toBeNull();
    } else {
      expect(reason).toContain(`Node.js ${SQLITE_MIN_NODE} or later`);
      expect(reason).toContain(`this is Node.js ${versions.node}`);
    }
  });

  it('runs on the Node this suite runs on (package.json: engines)', () => {
    expect(unsupportedNode(process.versions)).toBeNull();
  });

  it('an older Node is refused before the target file or its directory is made', async () => {
    const dir = join(tempDir(), 'new-dir');
    const open = SqliteDriver.open(join(dir, 'x.sqlite'), { nodeVersions: { node: '20.20.2', napi: '9' } });
    await expect(open).rejects.toBeInstanceOf(UnsupportedNodeError);
    await expect(open).rejects.toThrow(
      /^SQLite targets need Node\.js 22\.14 or later .* this is Node\.js 20\.20\.2 \(Node-API 9\)/,
    );
    expect(existsSync(dir)).toBe(false);
  });
});
