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
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
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

/**
 * An import of one of Node's built-in modules, as esbuild writes it, rewritten to take the module as CommonJS
 * (`process.getBuiltinModule`). An ES import of a built-in builds its namespace from every export, and reading
 * some of them loads what they stand for: `node:http`'s WebSocket and MessageEvent load undici, `node:crypto`'s
 * webcrypto its Web Crypto, `node:fs`'s `promises`. A backfill's `import … from 'node:http'` (got's, when got was
 * its HTTP client) cost 46 ms that way and 7 as CommonJS, on a machine where `node -e 0` takes 80 ms. Rewritten in
 * the output rather than resolved to modules of the bundle's own: those would be chunks of their own, a dozen
 * more files for `status` to load. An import the rewrite does not know the shape of fails the build.
 */
function builtinsAsCommonJs(text, file) {
  return text.replace(/^import (?:(.+?) from )?"([^"]+)";$/gm, (statement, clause, specifier) => {
    if (!isBuiltin(specifier)) return statement;
    const name = specifier.startsWith('node:') ? specifier : `node:${specifier}`;
    const module = `globalThis.process.getBuiltinModule(${JSON.stringify(name)})`;
    if (clause === undefined) return `${module};`;
    const names = (list) => {
      // A built-in's CommonJS module is its default export: `{ default as x }` has no property to read.
      if (/\bdefault\b/.test(list)) throw new Error(`${file}: a built-in's default imported by name: ${statement}`);
      return list.replace(/\s+as\s+/g, ': ');
    };
    let match;
    if ((match = /^\* as ([\w$]+)$/.exec(clause))) return `const ${match[1]} = ${module};`;
    if ((match = /^([\w$]+)$/.exec(clause))) return `const ${match[1]} = ${module};`;
    if ((match = /^(\{[^}]*\})$/.exec(clause))) return `const ${names(match[1])} = ${module};`;
    if ((match = /^([\w$]+), (\{[^}]*\})$/.exec(clause)))
      return `const ${match[1]} = ${module}, ${names(match[2])} = ${match[1]};`;
    throw new Error(`${file}: an import of a built-in the bundle cannot rewrite: ${statement}`);
  });
}

/**
 * string-width, loaded the first time a width is asked for. yargs and its help layout (cliui, wrap-ansi) each
 * import a copy, and each copy builds at its top an `Intl.Segmenter` or a Unicode-property regular expression
 * (`\\p{RGI_Emoji}`): loading the chunk that holds them took 70 ms instead of 38 on a machine where `node -e 0`
 * takes 80 ms, for every command, `--version` included, while only `--help` and the parser's messages ask for a
 * width. Each import becomes a function that requires the copy the importer would have had; esbuild then runs
 * that copy's module body at the first call. Only ES imports: the copy a CommonJS package requires is called as
 * the module itself.
 */
const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, async ({ path, resolveDir, kind, pluginData }) => {
      // CommonJS requirers (cli-progress, cli-table3) have string-width 4, which builds nothing at its top.
      if (pluginData === 'lazy-string-width' || kind !== 'import-statement') return undefined;
      const real = await build.resolve(path, { resolveDir, kind, pluginData: 'lazy-string-width' });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: 'lazy-string-width' };
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy-string-width' }, ({ path }) => ({
      contents: [
        'export default function stringWidth(text, options) {',
        `  return require(${JSON.stringify(path)}).default(text, options);`,
        '}',
      ].join('\n'),
      resolveDir: root,
      loader: 'js',
    }));
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
    js: "const require = globalThis.process.getBuiltinModule('node:module').createRequire(import.meta.url);",
  },
  chunkNames: 'chunk-[hash]',
  legalComments: 'none',
  plugins: [
    lazyStringWidth,
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
  write: false,
  logLevel: 'warning',
});
for (const { path, text } of result.outputFiles) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, path.endsWith('.js') ? builtinsAsCommonJs(text, path) : text);
}
// Beside dist/cli, not in it: the package ships dist/cli, and only the tests read which inputs each output holds.
writeFileSync(`${root}dist/cli-meta.json`, JSON.stringify(result.metafile));
