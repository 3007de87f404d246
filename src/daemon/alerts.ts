import { toIsoMicros } from '../normalize/time.js';
import { decideAlerts, INITIAL_ALERT_STATE, type AlertEvent, type AlertState } from './alert-decision.js';
import { alertMessage } from './alert-message.js';
import type { AlertSender } from './alert-sender.js';

export interface AlertsOptions {
  sender: Pick<AlertSender, 'send'>;
  /** This daemon's identity, on every message. */
  daemon: string;
  clock: () => number;
  /** The status page, when the daemon serves one. */
  link?: string | undefined;
}

/**
 * The daemon's alerts: every event goes through decideAlerts, and only the
 * changes of state it finds become messages.
 */
export class Alerts {
  readonly #o: AlertsOptions;
  #state: AlertState = INITIAL_ALERT_STATE;
  #link: string | undefined;

  constructor(options: AlertsOptions) {
    this.#o = options;
    this.#link = options.link;
  }

  /** The status page's address, once the server listens (its port may be chosen then). */
  set link(url: string | undefined) {
    this.#link = url;
  }

  /** Feeds one event; sends what it changed. Never throws, never waits. */
  readonly observe = (event: AlertEvent): void => {
    const { state, alerts } = decideAlerts(this.#state, event);
    this.#state = state;
    if (alerts.length === 0) return;
    const at = toIsoMicros(this.#o.clock() / 1000);
    for (const seed of alerts)
      this.#o.sender.send(alertMessage(seed, { at, daemon: this.#o.daemon, link: this.#link }));
  };

  /** The time of an event, as decideAlerts records it. */
  now(): string {
    return toIsoMicros(this.#o.clock() / 1000);
  }
}
