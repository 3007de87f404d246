/*
 * undici's connection pool and agent (the transport's and the alert sender's HTTP client), loaded from their own
 * modules rather than from the package's index. The index loads every part of undici (fetch, WebSocket, the cache,
 * mocks), and its cookie helpers read `globalThis.Headers`, which loads Node's own copy of undici besides: an
 * import of the index took 250 ms over a bare `node` on a loaded 2-core VM, these modules 85
 * (docs/benchmarks.md). The request API is a mixin of every dispatcher, as undici's own index makes it.
 */
import type { Agent as AgentInstance, Pool as PoolInstance } from 'undici';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import PoolClass from 'undici/lib/dispatcher/pool.js';
import api from 'undici/lib/api/index.js';

Object.assign(Dispatcher.prototype, api);

export const Agent = AgentClass;
export type Agent = AgentInstance;
export const Pool = PoolClass;
export type Pool = PoolInstance;
