import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** The newest PostgreSQL server binaries installed, or null (Debian's layout: /usr/lib/postgresql/N/bin). */
function serverBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? null : join(root, versions[0]!, 'bin');
}

const BIN = serverBin();
/** initdb refuses to run as root: the cluster then belongs to the `postgres` system user. */
const AS_ROOT = process.getuid?.() === 0;

/** Whether a throwaway cluster can be made on this machine. */
export const clusterPossible = BIN !== null;

/**
 * A throwaway PostgreSQL cluster of its own, in a temp dir on a free port:
 * a test can restart or stop it without touching the server other suites
 * share. `close()` stops it and removes its files.
 */
export interface PgCluster {
  readonly url: string;
  /** `pg_ctl restart -m fast`: sessions are terminated (57P01), and the server refuses connections until it is up. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

async function pg(tool: string, args: readonly string[]): Promise<void> {
  const path = join(BIN!, tool);
  if (AS_ROOT) await run('runuser', ['-u', 'postgres', '--', path, ...args]);
  else await run(path, [...args]);
}

export async function startPgCluster(): Promise<PgCluster> {
  if (BIN === null) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const dir = mkdtempSync(join(tmpdir(), 'ivs-pg-'));
  if (AS_ROOT) {
    const { uid, gid } = await postgresUser();
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const data = join(dir, 'data');
  const port = await freePort();
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const settings = ['listen_addresses=127.0.0.1', 'fsync=off', 'full_page_writes=off', 'shared_buffers=16MB'];
  const options = `-p ${port} -k ${dir} ${settings.map((s) => `-c ${s}`).join(' ')}`;
  const start = () => pg('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  const stop = () => pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: () => pg('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-m', 'fast', '-w', 'restart']),
    stop,
    start,
    close: async () => {
      await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: group } = await run('id', ['-g', 'postgres']);
  return { uid: Number(stdout.trim()), gid: Number(group.trim()) };
}
