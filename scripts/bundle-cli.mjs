// The CLI as the package's bin runs it: dist/cli/, bundled by esbuild from
// what tsc built (dist/src/cli/main.js), one file per lazily loaded part.
//
// Why: a backfill's process loaded some 690 files before its first request
// (lodash alone 255, knex 79, zod's every locale), 480 ms from spawn on a fast
// machine, and each run of cron pays it. A dynamic import() stays a boundary
// (`--splitting`), so what `status` or `--version` never reach stays in chunks
// they never load; test/cli/lazy-loading.test.ts reads dist/cli-meta.json to
// tell which packages each loaded chunk holds.
//
// The packages the CLI requires lazily, synchronously, where it first needs
// them (src/config/lazy-packages.ts) become entries of their own beside the
// chunks, `lazy-<name>.js`, and lazy-packages requires those instead: as ES
// modules bundled, zod leaves its 60-odd locale files out (40 ms of loading
// a config file cost, 14 ms bundled). Left outside: native addons and the
// database drivers, loaded from node_modules where they are used. The library
// (`import 'ivsync'`, dist/src/index.js) is not bundled.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const root = `${dirname(import.meta.dirname)}/`;
const outdir = `${root}dist/cli`;

const external = [
  'better-sqlite3',
  '@duckdb/*',
  'pg',
  'pg-copy-streams',
  'pg-native',
  'pino-pretty',
  // knex's other dialects' drivers: never installed, never required.
  'mysql',
  'mysql2',
  'mariadb',
  'mariadb/*',
  'oracledb',
  'tedious',
  'sqlite3',
  'pg-query-stream',
];

const LAZY = ['zod', 'yaml', 'node-cron', 'cli-progress'];

/**
 * lazy-packages.js requiring the lazy entries (its `require` is createRequire's: esbuild leaves it as written).
 * Each entry's default export is what `require(name)` returns, CommonJS (yaml, cli-progress) or not (zod).
 */
const lazyEntries = {
  name: 'lazy-entries',
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/]src[\\/]config[\\/]lazy-packages\.js$/ }, ({ path }) => {
      let contents = readFileSync(path, 'utf8');
      for (const name of LAZY) {
        const call = `require('${name}')`;
        if (!contents.includes(call)) throw new Error(`lazy-packages.js no longer holds ${call}`);
        contents = contents.replace(call, `require('./lazy-${name}.js').default`);
      }
      return { contents, loader: 'js' };
    });
  },
};

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: [
    { in: 'dist/src/cli/main.js', out: 'main' },
    ...LAZY.map((name) => ({ in: `lazy:${name}`, out: `lazy-${name}` })),
  ],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // Packages that ship both prefer their ES module: it is what lets esbuild drop zod's unused locales.
  mainFields: ['module', 'main'],
  external,
  // CommonJS inside the bundle (knex, yargs-parser's deps) requires Node's built-ins and the packages left outside.
  banner: {
    js: "import { createRequire as __ivsRequire } from 'node:module'; const require = __ivsRequire(import.meta.url);",
  },
  chunkNames: 'chunk-[hash]',
  legalComments: 'none',
  plugins: [
    lazyEntries,
    {
      name: 'lazy-modules',
      setup(build) {
        build.onResolve({ filter: /^lazy:/ }, ({ path }) => ({ path: path.slice('lazy:'.length), namespace: 'lazy' }));
        build.onLoad({ filter: /.*/, namespace: 'lazy' }, ({ path }) => ({
          contents: `import * as module from '${path}'; export default module;`,
          resolveDir: root,
          loader: 'js',
        }));
      },
    },
  ],
  metafile: true,
  logLevel: 'warning',
});
// Beside dist/cli, not in it: the package ships dist/cli, and only the tests read which inputs each output holds.
writeFileSync(`${root}dist/cli-meta.json`, JSON.stringify(result.metafile));
