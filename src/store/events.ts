import { z } from "zod";
import { StoreEvent } from "../model/index.js";
import type { StoreContext } from "./change.js";
import { parseInput } from "./parse-input.js";

const PAGE = 500;

/**
 * Under a stream of commits the reader reads at most every READ_INTERVAL_MS, and less often the
 * more subscribers there are, so that deliveries stay under DELIVERIES_PER_SECOND in all: each
 * read hands every subscriber the events of all the commits since the last one at once, and what a
 * subscriber does per delivery (an SSE stream's write to its socket) then costs per batch rather
 * than per commit. After a quiet spell the first ring is read at once.
 */
export const READ_INTERVAL_MS = 50;
export const DELIVERIES_PER_SECOND = 2_000;

/** Events after `after` in id order: what an SSE client that sent `Last-Event-ID: after` missed. */
export async function eventsSince(ctx: StoreContext, rawAfter: number, rawLimit = PAGE): Promise<StoreEvent[]> {
  const after = parseInput(z.number().int().nonnegative(), rawAfter, "last event id");
  const limit = parseInput(z.number().int().min(1).max(10_000), rawLimit, "event limit");
  const rows = await ctx.driver.read((q) =>
    q.all("SELECT id, type, request_id, status, at FROM events WHERE id > ? ORDER BY id LIMIT ?", [after, limit]),
  );
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

/**
 * Events in id order, one batch per read of the events table; the same array may go to several listeners (do not change
 * it).
 */
export type EventsListener = (events: readonly StoreEvent[]) => void;

interface Subscription {
  listener: EventsListener;
  options: SubscribeOptions;
  /** The last event id this subscription was given (or would have been: where it starts). */
  last: number;
}

/**
 * Change events for listeners of this process. The driver's doorbell rings after each commit
 * that published events (for PostgreSQL, in any process); one reader then reads the events table
 * past the last id it read (at most every READ_INTERVAL_MS) and hands what it read to every
 * subscription from memory, as one batch, so a read costs the same however many listen. A
 * subscription that resumes from an older id first reads what it missed, up to where the reader
 * is, in the same queue: events arrive once each, in order, without gaps.
 */
export class EventFeed {
  readonly #ctx: StoreContext;
  readonly #subscriptions = new Set<Subscription>();
  #stopListening: Promise<() => Promise<void>> | undefined;
  /** The last event id the reader has read; undefined while nobody listens. */
  #read: number | undefined;
  #pumping = false;
  #again = false;
  /** When the last read of new events began (monotonic ms). */
  #lastRead = -Infinity;

  constructor(ctx: StoreContext) {
    this.#ctx = ctx;
  }

  async subscribe(listener: EventsListener, options: SubscribeOptions = {}): Promise<() => Promise<void>> {
    this.#stopListening ??= this.#ctx.driver.listen(() => void this.#pump());
    try {
      await this.#stopListening;
      this.#read ??= await latestEventId(this.#ctx);
    } catch (err) {
      if (this.#subscriptions.size === 0) await this.#stop();
      throw err;
    }
    const subscription: Subscription = { listener, options, last: options.after ?? this.#read };
    this.#subscriptions.add(subscription);
    void this.#pump();
    return async () => {
      this.#subscriptions.delete(subscription);
      if (this.#subscriptions.size === 0) await this.#stop();
    };
  }

  async #stop(): Promise<void> {
    const stop = this.#stopListening;
    this.#stopListening = undefined;
    this.#read = undefined;
    if (stop !== undefined) await (await stop)();
  }

  /** One pump at a time: a ring (or a new subscription) while it reads makes it go round once more. */
  async #pump(): Promise<void> {
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = true;
    try {
      do {
        this.#again = false;
        for (const s of this.#subscriptions) await this.#catchUp(s);
        const interval = Math.max(READ_INTERVAL_MS, (1000 * this.#subscriptions.size) / DELIVERIES_PER_SECOND);
        const wait = this.#lastRead + interval - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        this.#lastRead = performance.now();
        await this.#readNew();
      } while (this.#again);
    } finally {
      this.#pumping = false;
    }
  }

  /** What a resuming subscription missed before the reader's position, read for it alone. */
  async #catchUp(s: Subscription): Promise<void> {
    try {
      while (this.#read !== undefined && s.last < this.#read && this.#subscriptions.has(s)) {
        const events = await eventsSince(this.#ctx, s.last);
        const upTo = this.#read;
        deliver(
          s,
          events.filter((event) => event.id <= upTo),
        ); // the reader hands out the rest
        if (events.length < PAGE || events[events.length - 1]!.id >= upTo) s.last = Math.max(s.last, upTo);
      }
    } catch (err) {
      s.options.onError?.(err);
    }
  }

  async #readNew(): Promise<void> {
    try {
      for (;;) {
        if (this.#read === undefined) return;
        const events = await eventsSince(this.#ctx, this.#read);
        if (this.#read === undefined) return; // everyone left while it read
        if (events.length > 0) {
          const from = this.#read;
          this.#read = events[events.length - 1]!.id;
          // One that is behind where this read began (it joined meanwhile, or its catch-up failed)
          // first catches up, in the next round: handed these now, it would skip what it missed.
          for (const s of this.#subscriptions) if (s.last >= from) deliver(s, events);
        }
        if (events.length < PAGE) return;
      }
    } catch (err) {
      for (const s of this.#subscriptions) s.options.onError?.(err);
    }
  }
}

/** The events of `events` that `s` has not had yet (the same array when that is all of them). */
function deliver(s: Subscription, events: readonly StoreEvent[]): void {
  const fresh = events.length > 0 && events[0]!.id > s.last ? events : events.filter((event) => event.id > s.last);
  if (fresh.length === 0) return;
  s.last = fresh[fresh.length - 1]!.id;
  try {
    s.listener(fresh);
  } catch {
    // a listener's own failure is its business; the others still get the event
  }
}
