/**
 * The memory a plugin worker and the host talk through: one growable SharedArrayBuffer holding
 * two wake-up flags, the current message's kind and the UTF-8 bytes of its text parts. Calls
 * strictly alternate (one side writes, raises the other's flag and waits), so one message slot
 * is enough; a message is complete before its flag is raised, and the flag's Atomics store
 * orders the bytes before it.
 *
 * `openChannel` runs on both sides (plugin-worker.ts, plugin-thread.ts).
 */

/** Int32 slots of the header. */
export const TO_WORKER = 0; // raised by the host: a message for the worker
export const TO_MAIN = 1; // raised by the worker: a message for the host

/** Message kinds. */
export const Kind = {
  ready: 1,
  call: 2,
  freshCall: 3,
  host: 4,
  response: 5,
  done: 6,
  error: 7,
  fatal: 8,
  overLimit: 9,
} as const;

/** The largest message (64 MiB): four times a plugin's whole memory, so any text it can hold fits. */
export const MAX_MESSAGE_BYTES = 64 << 20;
export const INITIAL_CHANNEL_BYTES = 64 << 10;

/** A SharedArrayBuffer made with a maxByteLength (ES2024; not in the project's lib). */
export interface GrowableShared extends SharedArrayBuffer {
  readonly maxByteLength: number;
  grow(bytes: number): void;
}

export interface Channel {
  flags: Int32Array;
  /** Write a message; false when it is larger than the channel may grow. */
  write(kind: number, parts: string[]): boolean;
  read(): { kind: number; parts: string[] };
}

export function newChannelBuffer(): GrowableShared {
  const Shared = SharedArrayBuffer as unknown as new (
    bytes: number,
    options: { maxByteLength: number },
  ) => GrowableShared;
  return new Shared(INITIAL_CHANNEL_BYTES, { maxByteLength: MAX_MESSAGE_BYTES });
}

export function openChannel(buffer: GrowableShared): Channel {
  const HEADER = 8; // TO_WORKER, TO_MAIN, kind, part count, up to 4 part lengths
  const head = new Int32Array(buffer, 0, HEADER);
  return {
    flags: head,
    write(kind, parts) {
      let size = HEADER * 4;
      const lengths = parts.map((part) => Buffer.byteLength(part, "utf8"));
      for (const n of lengths) size += n;
      if (size > buffer.byteLength) {
        if (size > buffer.maxByteLength) return false;
        buffer.grow(size);
      }
      const bytes = Buffer.from(buffer); // a view of the buffer's current length
      let at = HEADER * 4;
      for (let i = 0; i < parts.length; i++) {
        bytes.write(parts[i]!, at, lengths[i]!, "utf8");
        head[4 + i] = lengths[i]!;
        at += lengths[i]!;
      }
      head[2] = kind;
      head[3] = parts.length;
      return true;
    },
    read() {
      const bytes = Buffer.from(buffer);
      const parts: string[] = [];
      let at = HEADER * 4;
      for (let i = 0; i < head[3]!; i++) {
        parts.push(bytes.toString("utf8", at, at + head[4 + i]!));
        at += head[4 + i]!;
      }
      return { kind: head[2]!, parts };
    },
  };
}
