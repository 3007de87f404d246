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
import '../dist/cli/main.js';
