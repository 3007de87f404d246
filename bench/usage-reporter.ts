import { writeFileSync } from 'node:fs';

// Preloaded with `node --import` into a measured child process: on exit it
// writes the process's own peak RSS and CPU time where the benchmark asked.
const target = process.env.IVS_BENCH_USAGE_FILE;
if (target) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      target,
      JSON.stringify({
        maxRssKb: usage.maxRSS,
        userMs: usage.userCPUTime / 1000,
        systemMs: usage.systemCPUTime / 1000,
      }),
    );
  });
}
