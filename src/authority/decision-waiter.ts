import type { Store } from "../store/index.js";

/** How long the change subscription outlives its last waiter (so that a poll loop does not resubscribe each time). */
const IDLE_MS = 10_000;

/**
 * Long polls for decisions: one subscription to the store's change events (for PostgreSQL, of
 * every authority sharing the database) wakes the callers waiting on that request. It is held
 * only while someone waits: with no waiter, a commit costs no read of the events table.
 */
export class DecisionWaiter {
  readonly #store: Store;
  readonly #onError: (err: unknown) => void;
  readonly #waiting = new Map<string, Set<() => void>>();
  #subscription: Promise<() => Promise<void>> | undefined;
  #idle: NodeJS.Timeout | undefined;

  constructor(store: Store, onError: (err: unknown) => void) {
    this.#store = store;
    this.#onError = onError;
  }

  /**
   * Resolves, once the subscription is live, to a handle whose `wait` ends when request `id`
   * changes, after `ms`, or when `signal` aborts. Register before reading the request's state:
   * a change committed between the read and the wait is not missed.
   */
  async register(id: string): Promise<{ wait(ms: number, signal?: AbortSignal): Promise<void>; cancel(): void }> {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const set = this.#waiting.get(id) ?? new Set();
    this.#waiting.set(id, set);
    set.add(wake);
    const cancel = (): void => {
      set.delete(wake);
      if (set.size === 0 && this.#waiting.get(id) === set) this.#waiting.delete(id);
      if (this.#waiting.size === 0) this.#idleSoon();
      wake();
    };
    clearTimeout(this.#idle);
    try {
      await (this.#subscription ??= this.#subscribe());
    } catch (err) {
      cancel();
      throw err;
    }
    return {
      async wait(ms, signal) {
        const timer = setTimeout(cancel, ms);
        signal?.addEventListener("abort", cancel, { once: true });
        await woken;
        clearTimeout(timer);
        signal?.removeEventListener("abort", cancel);
        cancel();
      },
      cancel,
    };
  }

  async close(): Promise<void> {
    clearTimeout(this.#idle);
    for (const set of this.#waiting.values()) for (const wake of set) wake();
    this.#waiting.clear();
    await this.#unsubscribe();
  }

  #subscribe(): Promise<() => Promise<void>> {
    const subscription = this.#store.subscribe(
      (events) => {
        for (const event of events) for (const wake of this.#waiting.get(event.request_id) ?? []) wake();
      },
      { onError: this.#onError },
    );
    subscription.catch(() => (this.#subscription = undefined)); // the next waiter tries again
    return subscription;
  }

  #idleSoon(): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => void this.#unsubscribe().catch(this.#onError), IDLE_MS);
    this.#idle.unref();
  }

  async #unsubscribe(): Promise<void> {
    const subscription = this.#subscription;
    this.#subscription = undefined;
    if (subscription !== undefined) await (await subscription)();
  }
}
