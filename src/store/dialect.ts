import type { Sink } from './sink.js';

/** The three targets ivsync writes to. */
export type Dialect = Sink['dialect'];
