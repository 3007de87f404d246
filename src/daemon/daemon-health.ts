/** What the daemon knows about its own runs, for `GET /healthz`. */
export interface HealthFacts {
  /** How the last finished tick ended; null before the first one finished. */
  lastTick: { ok: true; finishedAt: string } | { ok: false; finishedAt: string; error: string } | null;
  /** A tick is running now. */
  running: boolean;
  /** Set while a crash loop holds the next attempt back. */
  backoffUntil: string | null;
  /** The daemon is stopping (a signal came). */
  stopping: boolean;
  /**
   * What the webhook stream means for the refresh (healthy, or quiet and why sync polls), as of the last tick; null
   * before it.
   */
  webhooks?: string | null;
}

export type Health =
  | { status: 200; body: { status: 'ok'; detail: string; webhooks?: string } }
  | { status: 503; body: { status: 'failing'; reason: string; webhooks?: string } };

/**
 * 200 while the last run succeeded or one is in progress, 503 with the reason
 * otherwise: the container's HEALTHCHECK and a load balancer read it.
 */
export function healthOf(facts: HealthFacts): Health {
  const health = runHealth(facts);
  // A quiet webhook stream is not a failure (sync polls instead), but the reader should know why requests went up.
  return facts.webhooks
    ? ({ status: health.status, body: { ...health.body, webhooks: facts.webhooks } } as Health)
    : health;
}

function runHealth(facts: HealthFacts): Health {
  if (facts.stopping) return { status: 503, body: { status: 'failing', reason: 'stopping' } };
  if (facts.backoffUntil !== null) {
    const last = facts.lastTick && !facts.lastTick.ok ? `: ${facts.lastTick.error}` : '';
    return {
      status: 503,
      body: { status: 'failing', reason: `crash loop: backing off until ${facts.backoffUntil}${last}` },
    };
  }
  if (facts.running) return { status: 200, body: { status: 'ok', detail: 'a run is in progress' } };
  if (facts.lastTick === null)
    return { status: 200, body: { status: 'ok', detail: 'waiting for the first scheduled run' } };
  if (facts.lastTick.ok)
    return { status: 200, body: { status: 'ok', detail: `last run succeeded at ${facts.lastTick.finishedAt}` } };
  return {
    status: 503,
    body: { status: 'failing', reason: `last run failed at ${facts.lastTick.finishedAt}: ${facts.lastTick.error}` },
  };
}
