import type { ViewDef } from './schema.js';

/** The analyst views, created in every target after the tables. */
export const VIEWS: readonly ViewDef[] = [];
