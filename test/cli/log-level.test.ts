import { describe, expect, it } from 'vitest';
import { runIvsync } from '../helpers/run-cli.js';
import { useSimulators } from '../helpers/simulators.js';
import { useTempDir, writeConfig } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const simulator = useSimulators({ sessions: 10 });

/** The levels of the JSON lines on stderr, by name. */
function levels(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => (JSON.parse(l) as { level: string }).level);
}

describe('the log level: --verbose > --log-level > IVS_LOG_LEVEL > logLevel in the file', () => {
  it.each([
    ['the file alone', [], {}, false],
    ['--verbose over a quiet file', ['--verbose'], {}, true],
    [
      '--verbose over IVS_LOG_LEVEL and --log-level',
      ['--verbose', '--log-level', 'error'],
      { IVS_LOG_LEVEL: 'error' },
      true,
    ],
    ['IVS_LOG_LEVEL over the file', [], { IVS_LOG_LEVEL: 'debug' }, true],
    ['--log-level over IVS_LOG_LEVEL', ['--log-level', 'warn'], { IVS_LOG_LEVEL: 'debug' }, false],
  ])('%s', async (_name, flags, extraEnv, debug) => {
    const sim = await simulator();
    const env = {
      IVS_BASE_URL: sim.url,
      IVS_API_TOKEN: 'test-token',
      IVS_CONFIG: writeConfig(tempDir(), { logLevel: 'warn' }),
      ...extraEnv,
    };
    const r = await runIvsync(['health', ...flags], env);
    expect(r.code).toBe(0);
    // health logs each request at debug and nothing above it.
    expect(levels(r.stderr).includes('debug')).toBe(debug);
  });
});
