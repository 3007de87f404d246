#!/usr/bin/env node
import { enableCompileCache } from 'node:module';
import { setFlagsFromString } from 'node:v8';

// Node keeps the code it compiled for these modules on disk (in the OS's temp
// directory) and reuses it on the next start: compiling the modules a command
// loads was most of what `status` or `--version` cost. Set before anything
// else is imported, so the rest of the CLI comes in below by a dynamic import.
enableCompileCache();
const { runCli } = await import('./cli.js');

// V8 lets the heap grow to up to four times what survived the last full
// collection before it collects again: a backfill or a daemon, which turn
// over pages all the time and keep little, then hold mostly garbage, beside
// DuckDB's memory, which is outside the heap. One and a half times is
// enough. A 100k-session Postgres backfill peaked at 226 MB of RSS with the
// default, 170 MB at 2x and 153 MB at 1.5x, for 18.0, 20.5 and 21.9 s of
// CPU; a 1M-session DuckDB backfill at 490, 424–432 and 410 MB (docs/benchmarks.md, "Memory
// at scale"). The flag is read at each collection, so it applies when set here.
setFlagsFromString('--heap-growing-percent=50');

// The only place that touches the process: signals, streams, exit code.
const controller = new AbortController();
let signals = 0;
let received: NodeJS.Signals | undefined;
const onSignal = (signal: NodeJS.Signals) => {
  signals++;
  if (signals === 1) {
    // The CLI says what it does about it (as a log record when stderr is not a terminal).
    received = signal;
    controller.abort();
  } else {
    process.exit(130);
  }
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
  signalName: () => received,
  clock: Date.now,
});
process.exitCode = code;
// Keep-alive sockets and timers must not hold a finished command open.
setTimeout(() => process.exit(code), 200).unref();
