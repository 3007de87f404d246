import type { WindowKey } from '../../store/sink.js';

/** The key of a window alone, without the rest of its state: what the store's window calls take. */
export function keyOf(window: WindowKey): WindowKey {
  return {
    account: window.account,
    resource: window.resource,
    apiVersion: window.apiVersion,
    windowStart: window.windowStart,
  };
}
