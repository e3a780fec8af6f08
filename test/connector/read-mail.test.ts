import { describe, expect, it } from "vitest";
import { INBOX } from "../../examples/gmail-server/gmail-server.js";
import type { Json } from "../../src/model/json.js";
import { gmailConnector, runAction, shippedManifests } from "./fixtures.js";

const set = shippedManifests();
const gmail = gmailConnector();

interface Listed {
  id: string;
  thread_id: string;
  from: string;
  subject: string;
  date: string;
  snippet: string;
}

const list = async (args: Record<string, Json>) =>
  ((await runAction(set, "email.list_messages", args, gmail.ctx)) as unknown as { messages: Listed[] }).messages;

describe("email connector: reading the mailbox", () => {
  it("lists the newest messages first, with sender, subject, date and snippet", async () => {
    const messages = await list({ q: "" });
    expect(messages.map((m) => m.subject)).toEqual([...INBOX].reverse().map((m) => m.subject));
    expect(messages[2]).toMatchObject({
      from: INBOX[0]!.from,
      date: INBOX[0]!.date,
      snippet: expect.stringMatching(/^Hi! Are you free/),
    });
    expect(messages[2]!.id).toMatch(/^m[0-9a-f]{8}$/);
  });

  it("sends the query percent-encoded and the maximum as maxResults", async () => {
    const before = gmail.server.requests.length;
    const found = await list({ q: "from:billing@supplier.example invoice", max_results: 5 });
    expect(found.map((m) => m.subject)).toEqual(["Invoice 2026-114"]);
    expect(gmail.server.requests.slice(before)).toEqual([
      "GET /gmail/v1/users/me/messages",
      `GET /gmail/v1/users/me/messages/${found[0]!.id}`,
    ]);
    expect(await list({ q: "ünïcode & =?#/ no such words" })).toEqual([]);
    expect(await list({ q: "", max_results: 1 })).toHaveLength(1);
  });

  it("refuses a maximum out of bounds, and asks the API nothing", async () => {
    const before = gmail.server.requests.length;
    for (const max_results of [0, 51, 2.5]) {
      await expect(
        runAction(set, "email.list_messages", { q: "", max_results }, gmail.ctx),
        String(max_results),
      ).rejects.toMatchObject({ class: "connector_error" });
    }
    expect(gmail.server.requests.length).toBe(before);
  });

  it("reads a message: headers and the plain-text body, the html alternative left out", async () => {
    const [invoice] = await list({ q: "subject:invoice" });
    const read = await runAction(set, "email.get_message", { id: invoice!.id }, gmail.ctx);
    expect(read).toEqual({
      id: invoice!.id,
      thread_id: invoice!.id,
      from: "Billing <billing@supplier.example>",
      subject: "Invoice 2026-114",
      date: INBOX[1]!.date,
      snippet: invoice!.snippet,
      to: ["me@example.com"],
      cc: [],
      body: INBOX[1]!.body,
    });
  });

  it("reads a message with an attachment, the attachment left out", async () => {
    const id = gmail.server.receive({
      from: "a@example.com",
      to: ["me@example.com"],
      subject: "scan",
      body: "see attached",
      attachments: ["scan.pdf"],
      date: "Thu, 26 Nov 2026 10:00:00 +0000",
    });
    expect(await runAction(set, "email.get_message", { id }, gmail.ctx)).toMatchObject({
      subject: "scan",
      body: "see attached",
    });
  });

  it("refuses a message with several text/plain parts: which one is the body would be a guess", async () => {
    const id = gmail.server.receive({
      from: "a@example.com",
      to: ["me@example.com"],
      subject: "two",
      body: "first",
      html: "<p>first</p>",
      date: "Thu, 26 Nov 2026 10:00:00 +0000",
    });
    const m = gmail.server.inbox.find((x) => x.id === id)!;
    const parts = m.payload.parts!;
    m.payload.parts = [
      parts[0]!,
      { ...parts[0]!, body: { size: 6, data: Buffer.from("second").toString("base64url") } },
    ];
    await expect(runAction(set, "email.get_message", { id }, gmail.ctx)).rejects.toMatchObject({
      class: "connector_error",
      message: expect.stringContaining("several text/plain parts"),
    });
  });

  it("reports the provider's 404 for an unknown message, and refuses an id that would change the path", async () => {
    await expect(runAction(set, "email.get_message", { id: "m_missing" }, gmail.ctx)).rejects.toMatchObject({
      class: "external_api_error",
      details: { status: 404 },
    });
    const before = gmail.server.requests.length;
    for (const id of ["../drafts", "a?format=raw", "", "x".repeat(129)]) {
      await expect(runAction(set, "email.get_message", { id }, gmail.ctx), id).rejects.toMatchObject({
        class: "connector_error",
      });
    }
    expect(gmail.server.requests.length).toBe(before);
  });
});
