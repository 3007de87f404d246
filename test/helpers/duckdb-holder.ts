import { fileURLToPath } from 'node:url';
import { spawnChild } from './run-cli.js';
import { until } from './wait.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** The other process: opens the file and a connection, says so, and closes both on SIGTERM. */
const HOLDER = `
import { DuckDBInstance } from '@duckdb/node-api';
const instance = await DuckDBInstance.create(process.argv[1]);
const connection = await instance.connect();
const keepAlive = setInterval(() => undefined, 60_000);
process.on('SIGTERM', () => { connection.closeSync(); instance.closeSync(); clearInterval(keepAlive); });
process.stdout.write('held\\n');
`;

export interface DuckdbHolder {
  pid: number | undefined;
  /** SIGTERM: the holder closes the file and exits; resolves with its exit code. */
  release(): Promise<number>;
  /** SIGKILL, for a `finally` (a no-op once it has exited). */
  kill(): void;
}

/**
 * Another process that holds a DuckDB file open (an analyst's DuckDB session,
 * say) until it is released: DuckDB locks the whole file for as long as a
 * process has it open. Resolves once the file is held.
 */
export async function holdDuckdbFile(path: string): Promise<DuckdbHolder> {
  const child = spawnChild(
    process.execPath,
    ['--input-type=module', '-e', HOLDER, path],
    { PATH: process.env.PATH },
    REPO,
  );
  try {
    await until(() => child.stdout().includes('held'), { what: 'the holder to open the file', child, limitMs: 30_000 });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    pid: child.pid,
    release: async () => {
      child.kill('SIGTERM');
      return (await child.exited).code;
    },
    kill: () => child.kill('SIGKILL'),
  };
}
