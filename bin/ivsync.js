#!/usr/bin/env node
// The package's bin: the CLI, run in this process. A plain Node script, so
// `node bin/ivsync.js`, Windows and process managers that start `node <bin>`
// all work. Node resolves the links npm makes (node_modules/.bin, a global
// prefix) before it loads this file, so the import below finds dist/.
//
// glibc's arena cap (MALLOC_ARENA_MAX=2) cannot be set from here: glibc reads
// it once, when the process starts. The Dockerfile and the systemd unit set it
// (docs/operations.md, "Memory").
import '../dist/src/cli/main.js';
