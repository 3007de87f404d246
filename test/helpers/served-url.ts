import type { Child } from './run-cli.js';
import { until } from './wait.js';

/** The base URL a daemon started with `--port 0` serves on, from its log line (the only place the port is told). */
export async function servedUrl(child: Child): Promise<string> {
  return until(
    () => /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"serving \/healthz and \/metrics"/.exec(child.stderr())?.[1],
    { what: 'the daemon serving', child, limitMs: 30_000 },
  );
}
