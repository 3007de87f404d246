import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach } from 'vitest';
import { startPgCluster, type PgCluster } from './pg-cluster.js';
import { POSTGRES_URL, postgresUp } from './postgres.js';
import type { Child } from './run-cli.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

/**
 * What a test of a database outage sets up, torn down after each test in
 * one place: its child processes killed, its TCP proxy and throwaway
 * cluster closed, its schemas dropped from the shared server.
 */
export interface OutageScene {
  /** `child`, killed after the test should it still run. */
  track(child: Child): Child;
  /** A TCP proxy in front of the shared server (IVS_TEST_POSTGRES_URL), which the test can cut and restore. */
  proxy(): Promise<TcpProxy>;
  /** A throwaway PostgreSQL cluster the test may restart or stop. */
  cluster(): Promise<PgCluster>;
  /**
   * A new schema's name and the target URL for it on `base` (the shared
   * server unless given), reached through `port` when given (a proxy's).
   */
  schema(base?: string, port?: number): { url: string; schema: string };
}

export function useOutageScene(): OutageScene {
  const children: Child[] = [];
  const proxies: TcpProxy[] = [];
  const clusters: PgCluster[] = [];
  const schemas: string[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    for (const p of proxies.splice(0)) await p.close();
    for (const c of clusters.splice(0)) await c.close();
    // A throwaway cluster's schemas went with it; those on the shared server are dropped.
    if (postgresUp && schemas.length > 0) {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      for (const s of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
      await client.end();
    }
  });
  return {
    track: (child) => {
      children.push(child);
      return child;
    },
    proxy: async () => {
      const target = new URL(POSTGRES_URL!);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      proxies.push(proxy);
      return proxy;
    },
    cluster: async () => {
      const cluster = await startPgCluster();
      clusters.push(cluster);
      return cluster;
    },
    schema: (base = POSTGRES_URL!, port) => {
      const schema = `ivs_test_${randomBytes(6).toString('hex')}`;
      if (base === POSTGRES_URL) schemas.push(schema);
      const url = new URL(base);
      if (port !== undefined) url.port = String(port);
      url.searchParams.set('schema', schema);
      return { url: url.toString(), schema };
    },
  };
}
