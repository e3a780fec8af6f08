import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SseParser, type SseEvent } from "../../../src/cli/approve/sse.js";

const STREAM =
  ': keepalive\n\nid: 7\nevent: pending\ndata: {"request_id":"req_a"}\n\nid: 8\r\nevent: resolved\r\ndata: line one\r\ndata: line two\r\n\r\ndata:no space\rid: 9\r\r\n';
const EXPECTED: SseEvent[] = [
  { id: "7", event: "pending", data: '{"request_id":"req_a"}' },
  { id: "8", event: "resolved", data: "line one\nline two" },
  { id: "9", event: "message", data: "no space" },
];

describe("SseParser", () => {
  it("reads events with their ids, types and data; comments and keepalives are no events; LF, CRLF and CR all end lines", () => {
    expect(new SseParser().push(STREAM)).toEqual(EXPECTED);
  });

  it("keeps the last id for events that send none, and an event needs data", () => {
    const parser = new SseParser();
    expect(parser.push("id: 3\nevent: pending\n\n")).toEqual([]);
    expect(parser.push("data: x\n\n")).toEqual([{ id: "3", event: "message", data: "x" }]);
  });

  it("waits for the rest of a line, and for the LF of a CRLF split between chunks", () => {
    const parser = new SseParser();
    expect(parser.push("data: a\r")).toEqual([]);
    expect(parser.push("\n\r")).toEqual([]);
    expect(parser.push("\ndata: b")).toEqual([{ id: undefined, event: "message", data: "a" }]);
    expect(parser.push("\n\n")).toEqual([{ id: undefined, event: "message", data: "b" }]);
  });

  it("gives the same events however the stream is cut into chunks (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: STREAM.length }), { maxLength: 12 }), (cuts) => {
        const points = [...new Set([0, ...cuts, STREAM.length])].sort((a, b) => a - b);
        const parser = new SseParser();
        const events = points.slice(1).flatMap((end, i) => parser.push(STREAM.slice(points[i], end)));
        expect(events).toEqual(EXPECTED);
      }),
      { numRuns: 300 },
    );
  });
});
