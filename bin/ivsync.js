#!/usr/bin/env -S node --max-semi-space-size=8
// The package's bin: the CLI, run in this process. A plain Node script, so
// `node bin/ivsync.js`, Windows and process managers that start `node <bin>`
// all work. Node resolves the links npm makes (node_modules/.bin, a global
// prefix) before it loads this file, so the import below finds dist/.
//
// V8's young generation is sized by --max-semi-space-size, which V8 reads
// only when the process starts, so it is on the shebang line (`env -S`):
// without it a long run's young generation grew to 128 MB with 24 MB of it in
// use, and at 8 MB a 10M-session DuckDB backfill peaked lower than at 16
// (docs/operations.md, "Memory"). `node bin/ivsync.js` runs without it
// unless NODE_OPTIONS carries it.
//
// glibc's arena cap (MALLOC_ARENA_MAX=2) cannot be set from here: glibc reads
// it once, when the process starts. The Dockerfile and the systemd unit set it
// (docs/operations.md, "Memory").
//
// The CLI is built for Node.js 22.14 or later (package.json's `engines`; its
// SQLite driver needs Node-API 10). On an older Node it would die at its first
// line with a stack trace (Node 20 has no compile cache to enable), so this file,
// which any Node can run, checks first and says so in one line. The CLI is
// imported after the check: a static import would run before it.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 14)) {
  process.stderr.write(
    `ivsync needs Node.js 22.14 or later; this is Node.js ${process.versions.node} (${process.execPath}): ` +
      'put a newer node first on PATH (README, "Node.js")\n',
  );
  process.exit(1);
}
await import('../dist/cli/main.js');
