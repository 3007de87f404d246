import type { Sink } from '../store/sink.js';

/** The three targets ivsync writes to. */
export type Dialect = Sink['dialect'];
