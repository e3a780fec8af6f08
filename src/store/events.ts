import { z } from "zod";
import { StoreEvent } from "../model/index.js";
import type { StoreContext } from "./change.js";
import { parseInput } from "./parse-input.js";

const PAGE = 500;

/** Events after `after` in id order: what an SSE client that sent `Last-Event-ID: after` missed. */
export async function eventsSince(ctx: StoreContext, rawAfter: number, rawLimit = PAGE): Promise<StoreEvent[]> {
  const after = parseInput(z.number().int().nonnegative(), rawAfter, "last event id");
  const limit = parseInput(z.number().int().min(1).max(10_000), rawLimit, "event limit");
  const rows = await ctx.driver.read((q) => q.all("SELECT id, type, request_id, status, at FROM events WHERE id > ? ORDER BY id LIMIT ?", [after, limit]));
  return rows.map((r) => StoreEvent.parse({ ...r, id: Number(r.id), at: Number(r.at) }));
}

export async function latestEventId(ctx: StoreContext): Promise<number> {
  const row = (await ctx.driver.read((q) => q.all("SELECT MAX(id) AS id FROM events")))[0];
  return Number(row?.id ?? 0);
}

export interface SubscribeOptions {
  /** Deliver events after this id first (SSE `Last-Event-ID`); default: only what happens from now on. */
  after?: number;
  /** A read of the events table failed; delivery resumes with the next change. */
  onError?: (err: unknown) => void;
}

interface Subscription {
  listener: (event: StoreEvent) => void;
  options: SubscribeOptions;
  last: number;
  pumping: boolean;
  again: boolean;
}

/**
 * Change events for listeners of this process. The driver's doorbell rings after each commit
 * that published events (for PostgreSQL, in any process); each subscription then reads the
 * events table past the last id it delivered, so events arrive once each, in order, without gaps.
 */
export class EventFeed {
  readonly #ctx: StoreContext;
  readonly #subscriptions = new Set<Subscription>();
  #stopListening: Promise<() => Promise<void>> | undefined;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  async subscribe(listener: (event: StoreEvent) => void, options: SubscribeOptions = {}): Promise<() => Promise<void>> {
    this.#stopListening ??= this.#ctx.driver.listen(() => {
      for (const s of this.#subscriptions) void this.#pump(s);
    });
    try {
      await this.#stopListening;
    } catch (err) {
      this.#stopListening = undefined;
      throw err;
    }
    const subscription: Subscription = { listener, options, last: options.after ?? (await latestEventId(this.#ctx)), pumping: false, again: false };
    this.#subscriptions.add(subscription);
    void this.#pump(subscription);
    return async () => {
      this.#subscriptions.delete(subscription);
      if (this.#subscriptions.size > 0 || this.#stopListening === undefined) return;
      const stop = this.#stopListening;
      this.#stopListening = undefined;
      await (await stop)();
    };
  }

  async #pump(s: Subscription): Promise<void> {
    if (s.pumping) {
      s.again = true;
      return;
    }
    s.pumping = true;
    try {
      do {
        s.again = false;
        for (;;) {
          const events = await eventsSince(this.#ctx, s.last);
          for (const event of events) {
            s.last = event.id;
            if (!this.#subscriptions.has(s)) return;
            try {
              s.listener(event);
            } catch {
              // a listener's own failure is its business; the others still get the event
            }
          }
          if (events.length < PAGE) break;
        }
      } while (s.again);
    } catch (err) {
      s.options.onError?.(err);
    } finally {
      s.pumping = false;
    }
  }
}
