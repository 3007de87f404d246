/**
 * Runs tasks one at a time in call order. A sink shares one connection between
 * its callers (the crawler, the webhook receiver), and a transaction spans
 * several awaits, so two callers must never interleave on it.
 */
export class ExclusiveLock {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    // The chain must survive a failed task; the caller still sees the failure.
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
