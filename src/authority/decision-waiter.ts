import type { Store } from "../store/index.js";

/**
 * Long polls for decisions: one subscription to the store's change events (for PostgreSQL, of
 * every authority sharing the database) wakes the callers waiting on that request.
 */
export class DecisionWaiter {
  readonly #waiting = new Map<string, Set<() => void>>();
  #unsubscribe: (() => Promise<void>) | undefined;

  static async start(store: Store, onError: (err: unknown) => void): Promise<DecisionWaiter> {
    const waiter = new DecisionWaiter();
    waiter.#unsubscribe = await store.subscribe((event) => waiter.#wake(event.request_id), { onError });
    return waiter;
  }

  /**
   * Resolves when request `id` changes, or after `ms`, or when `signal` aborts. Register before
   * reading the request's state: a change between the read and the wait is not missed.
   */
  register(id: string): { wait(ms: number, signal?: AbortSignal): Promise<void>; cancel(): void } {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const set = this.#waiting.get(id) ?? new Set();
    this.#waiting.set(id, set);
    set.add(wake);
    const cancel = (): void => {
      set.delete(wake);
      if (set.size === 0 && this.#waiting.get(id) === set) this.#waiting.delete(id);
      wake();
    };
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
    for (const set of this.#waiting.values()) for (const wake of set) wake();
    this.#waiting.clear();
    await this.#unsubscribe?.();
  }

  #wake(id: string): void {
    for (const wake of this.#waiting.get(id) ?? []) wake();
  }
}
