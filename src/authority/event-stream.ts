import type { ServerResponse } from "node:http";
import type { StoreEvent } from "../model/index.js";

/**
 * How many bytes a stream may hold that its client has not taken yet. Past it the stream ends
 * (after what it holds) rather than buffering without bound: the client's EventSource reconnects
 * with the last id it received and reads the rest from the events table.
 */
export const MAX_UNSENT_BYTES = 256 * 1024;

const encoder = new TextEncoder();

/** The SSE comment that keeps an idle connection (and proxies) from timing out. */
export const KEEPALIVE = encoder.encode(": keepalive\n\n");

/**
 * The SSE bytes of a batch of events, made once however many streams carry it: the store hands
 * one batch (one array) to every stream that is up to date.
 */
const sseBytes = new WeakMap<readonly StoreEvent[], Uint8Array>();

export function eventsBytes(events: readonly StoreEvent[]): Uint8Array {
  let bytes = sseBytes.get(events);
  if (bytes === undefined) {
    let text = "";
    for (const event of events)
      text += `event: ${event.type}\nid: ${event.id}\ndata: ${JSON.stringify({ ...event, at: new Date(event.at).toISOString() })}\n\n`;
    bytes = encoder.encode(text);
    sseBytes.set(events, bytes);
  }
  return bytes;
}

/**
 * An SSE response written straight to the Node response (the same bytes to every stream that
 * carries them, no copy per stream). What the socket has not taken yet waits in the response's
 * own buffer, so a client that stops reading costs at most MAX_UNSENT_BYTES before it is cut off.
 */
export class EventStream {
  readonly #response: ServerResponse;
  #ended = false;
  readonly #onEnd: () => void;

  /** Sends the headers now; `onEnd` runs once, when the client goes away or the stream is cut off. */
  constructor(response: ServerResponse, onEnd: () => void) {
    this.#response = response;
    this.#onEnd = onEnd;
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    response.flushHeaders();
    response.once("close", () => this.#end());
    if (response.destroyed) this.#end(); // the client left before the stream opened
  }

  get ended(): boolean {
    return this.#ended;
  }

  /**
   * Queue `bytes` for the client; false when the stream has ended (now, if it would hold too much: `bytes` are not
   * sent).
   */
  write(bytes: Uint8Array): boolean {
    if (this.#ended) return false;
    if (this.#response.writableLength + bytes.length > MAX_UNSENT_BYTES) {
      this.close();
      return false;
    }
    this.#response.write(bytes);
    return true;
  }

  /** End the stream after what it holds; later writes are dropped (the client resumes from its last event id). */
  close(): void {
    if (this.#ended) return;
    this.#response.end();
    this.#end();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#onEnd();
  }
}
