/** The three targets ivsync writes to. */
export type Dialect = 'sqlite' | 'duckdb' | 'postgres';
