import type { StoreEvent } from "../model/index.js";

/**
 * How much text a stream may hold that its client has not taken yet. Past it the stream ends
 * (after what it holds) rather than buffering without bound: the client's EventSource reconnects
 * with the last id it received and reads the rest from the events table.
 */
export const MAX_UNSENT_CHARS = 256 * 1024;

const encoder = new TextEncoder();

/** The SSE text of each event, written once however many streams carry it. */
const sseText = new WeakMap<StoreEvent, string>();

export function eventText(event: StoreEvent): string {
  let text = sseText.get(event);
  if (text === undefined) {
    text = `event: ${event.type}\nid: ${event.id}\ndata: ${JSON.stringify({ ...event, at: new Date(event.at).toISOString() })}\n\n`;
    sseText.set(event, text);
  }
  return text;
}

/**
 * An SSE body the client pulls from: text waits here until the socket can take more (the Node
 * server reads the body only after the socket drained), so a slow client costs at most
 * MAX_UNSENT_CHARS before it is cut off.
 */
export class EventStream {
  readonly body: ReadableStream<Uint8Array>;
  #unsent = "";
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #pulled: (() => void) | undefined;
  #ended = false;
  readonly #onEnd: () => void;

  /** `onEnd` runs once, when the client goes away or the stream is cut off. */
  constructor(onEnd: () => void) {
    this.#onEnd = onEnd;
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => void (this.#controller = controller),
        pull: () => {
          if (this.#unsent !== "") return this.#flush();
          return new Promise<void>((resolve) => (this.#pulled = resolve));
        },
        cancel: () => this.#end(),
      },
      { highWaterMark: 0 },
    );
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Queue `text` for the client; false when the stream has ended (now, if it would hold too much: `text` is not sent). */
  write(text: string): boolean {
    if (this.#ended) return false;
    if (this.#unsent.length + text.length > MAX_UNSENT_CHARS) {
      this.close();
      return false;
    }
    this.#unsent += text;
    const pulled = this.#pulled;
    if (pulled !== undefined) {
      this.#pulled = undefined;
      this.#flush();
      pulled();
    }
    return true;
  }

  /** End the stream after what it holds; later writes are dropped (the client resumes from its last event id). */
  close(): void {
    if (this.#ended) return;
    if (this.#unsent !== "") this.#flush();
    this.#controller.close();
    this.#pulled?.();
    this.#end();
  }

  #flush(): void {
    this.#controller.enqueue(encoder.encode(this.#unsent));
    this.#unsent = "";
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#onEnd();
  }
}
