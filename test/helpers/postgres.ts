import pg from 'pg';

/** The test server, from IVS_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test). */
export const POSTGRES_URL = process.env.IVS_TEST_POSTGRES_URL;

/** Set by .ci/run: there, a Postgres that does not answer fails the suites instead of skipping them. */
export const REQUIRE_POSTGRES = process.env.IVS_REQUIRE_POSTGRES === '1';

async function reachable(url: string | undefined): Promise<boolean> {
  if (!url) return false;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export const postgresUp = await reachable(POSTGRES_URL);

/** Why the Postgres suites cannot run, for skip warnings and failures. */
export const postgresProblem = POSTGRES_URL
  ? `IVS_TEST_POSTGRES_URL (${POSTGRES_URL}) is not reachable`
  : 'IVS_TEST_POSTGRES_URL is not set';

/**
 * Call at the top of a file with Postgres tests: warns visibly that they are
 * skipped, or, under IVS_REQUIRE_POSTGRES=1, fails the file.
 */
export function announcePostgres(what: string): void {
  if (postgresUp) return;
  if (REQUIRE_POSTGRES) throw new Error(`${postgresProblem}, and IVS_REQUIRE_POSTGRES=1 forbids skipping the ${what}`);
  console.warn(`${postgresProblem}: the ${what} are skipped`);
}
