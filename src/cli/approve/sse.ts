/** One server-sent event: its id (the stream's resume point), type and data. */
export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * A server-sent event stream read chunk by chunk, as the text arrives (HTML's event-stream
 * format): lines end with LF, CRLF or CR, a blank line ends an event, `:` lines are comments
 * (keepalives). A chunk may end anywhere, even between CR and LF.
 */
export class SseParser {
  #buffer = "";
  #id: string | undefined;
  #event = "";
  #data: string[] = [];

  push(chunk: string): SseEvent[] {
    this.#buffer += chunk;
    const events: SseEvent[] = [];
    // A CR at the very end may be the first half of CRLF: it waits for the next chunk.
    const complete = this.#buffer.endsWith("\r") ? this.#buffer.length - 1 : this.#buffer.length;
    const lines = this.#buffer.slice(0, complete).split(/\r\n|\r|\n/);
    this.#buffer = lines.pop()! + this.#buffer.slice(complete);
    for (const text of lines) {
      const event = this.#line(text);
      if (event !== undefined) events.push(event);
    }
    return events;
  }

  #line(text: string): SseEvent | undefined {
    if (text === "") {
      if (this.#data.length === 0) {
        this.#event = "";
        return undefined;
      }
      const event = { id: this.#id, event: this.#event === "" ? "message" : this.#event, data: this.#data.join("\n") };
      this.#event = "";
      this.#data = [];
      return event;
    }
    if (text.startsWith(":")) return undefined;
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    const value = colon === -1 ? "" : text.slice(colon + 1).replace(/^ /, "");
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    else if (field === "id" && !value.includes("\u0000")) this.#id = value;
    return undefined;
  }
}
