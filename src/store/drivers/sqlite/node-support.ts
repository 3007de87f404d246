import { UserError } from '../../../errors.js';

/**
 * The Node-API version better-sqlite3 13's addon is built for (NAPI_VERSION
 * in its binding.gyp). Node ships it from 22.14 on; on an older Node (all of
 * 20.x, 22.0 to 22.13) the addon loads and then the process dies of a
 * segmentation fault in `new Database()`, without a word.
 */
export const SQLITE_NODE_API = 10;

/** The first Node.js release with Node-API 10, as package.json's `engines` names it. */
export const SQLITE_MIN_NODE = '22.14';

/** What `process.versions` says about the running Node. */
export interface NodeVersions {
  readonly node: string;
  /** Absent from a Node built without Node-API. */
  readonly napi?: string | undefined;
}

/** Why the SQLite driver cannot run on this Node, or null when it can. */
export function unsupportedNode(versions: NodeVersions): string | null {
  const napi = Number(versions.napi);
  if (Number.isInteger(napi) && napi >= SQLITE_NODE_API) return null;
  const has = Number.isInteger(napi) && napi > 0 ? `Node-API ${napi}` : 'no Node-API';
  return (
    `SQLite targets need Node.js ${SQLITE_MIN_NODE} or later (Node-API ${SQLITE_NODE_API}); ` +
    `this is Node.js ${versions.node} (${has}): put a newer node first on PATH (README, "Node.js")`
  );
}

/** The running Node is too old for the SQLite driver: refused before the addon is touched. */
export class UnsupportedNodeError extends UserError {
  constructor(message: string) {
    super('UNSUPPORTED_NODE', message);
  }
}
