import type { HttpBindings } from '@hono/node-server';
import type { Hono } from 'hono';

/** The router of one server, on node's http (the receiver reaches the node request and response through it). */
export type HttpApp = Hono<{ Bindings: HttpBindings }>;
