import { describe, expect, it } from "vitest";
import { connectorContext } from "../../src/config/index.js";
import { dataDirWith, gmailConnector, runAction, shippedManifests } from "./fixtures.js";

const set = shippedManifests();
const gmail = gmailConnector();

const letter = {
  to: ["bob@example.com", "carol@example.com"],
  subject: "Report ready",
  body: "It is in /reports.\nLine two.",
};

describe("email connector against the Gmail-shaped server", () => {
  it("drafts, reads and sends a draft", async () => {
    const draft = (await runAction(set, "email.draft_email", letter, gmail.ctx)) as { id: string; message_id: string };
    expect(draft.id).toMatch(/^r[0-9a-f]{8}$/);
    expect(gmail.server.drafts.has(draft.id)).toBe(true);

    const read = (await runAction(set, "email.get_draft", { id: draft.id }, gmail.ctx)) as Record<string, unknown>;
    expect(read).toMatchObject({ id: draft.id, to: letter.to, subject: letter.subject, body: letter.body });

    // As with Gmail, the sent message gets an id of its own.
    const sent = (await runAction(set, "email.send_draft", { draft_id: draft.id }, gmail.ctx)) as {
      id: string;
      thread_id: string;
    };
    expect(sent.id).toMatch(/^m[0-9a-f]{8}$/);
    expect(gmail.server.sent.at(-1)).toEqual({
      id: sent.id,
      via: "draft",
      to: letter.to,
      subject: letter.subject,
      body: letter.body,
    });
    expect(gmail.server.drafts.has(draft.id)).toBe(false);
  });

  it("sends a message at once, non-ASCII subject included", async () => {
    const result = (await runAction(set, "email.send_email", { ...letter, subject: "Grüße — ✓" }, gmail.ctx)) as {
      id: string;
    };
    expect(gmail.server.sent.at(-1)).toEqual({
      id: result.id,
      via: "message",
      to: letter.to,
      subject: "Grüße — ✓",
      body: letter.body,
    });
  });

  it("sends a body of 320 Ki characters, escapes and non-ASCII included, intact (the plugin's heap is reset only between calls)", async () => {
    const body = 'Zeile ✓ 😀 "q" \\ \t\u0001\n'.repeat(1 << 14);
    const result = (await runAction(set, "email.send_email", { ...letter, body }, gmail.ctx)) as { id: string };
    expect(gmail.server.sent.at(-1)).toEqual({
      id: result.id,
      via: "message",
      to: letter.to,
      subject: letter.subject,
      body,
    });
  });

  it("reports the provider's status for an unknown draft", async () => {
    await expect(runAction(set, "email.send_draft", { draft_id: "r_missing" }, gmail.ctx)).rejects.toMatchObject({
      class: "external_api_error",
      boundary: "provider",
      details: { status: 404 },
    });
  });

  it("refuses a recipient that smuggles in a second address, and sends nothing", async () => {
    const before = gmail.server.requests.length;
    for (const to of [
      ["bob@example.com, eve@evil.com"],
      ["Bob <bob@example.com>"],
      ["bob@example.com\r\nBcc: eve@evil.com"],
      [],
    ]) {
      await expect(runAction(set, "email.send_email", { ...letter, to }, gmail.ctx)).rejects.toMatchObject({
        class: "connector_error",
      });
    }
    expect(gmail.server.requests.length).toBe(before);
  });

  it("refuses addresses that are not one plain address: whitespace, a display name, an empty domain label", async () => {
    const before = gmail.server.requests.length;
    for (const to of [
      [" bob@example.com"],
      ["bob@example.com "],
      ["bob@example.com\t"],
      ["bob@"],
      ["@example.com"],
      ["bob@example..com"],
      ["bob@.example.com"],
      ["bob@a@b.com"],
      ["bób@example.com"],
    ]) {
      await expect(
        runAction(set, "email.send_email", { ...letter, to }, gmail.ctx),
        JSON.stringify(to),
      ).rejects.toMatchObject({ class: "connector_error" });
    }
    // Two trailing dots: the wrapper's canonical form would not be the one the connector sends.
    await expect(
      runAction(set, "email.send_email", { ...letter, to: ["bob@example.com.."] }, gmail.ctx),
    ).rejects.toMatchObject({ class: "grant_violation", details: { reason: "non_canonical" } });
    expect(gmail.server.requests.length).toBe(before);
  });

  it("sends every address in the canonical form the constraints compare in: lower case, no trailing dot", async () => {
    await runAction(set, "email.send_email", { ...letter, to: ["CEO@Rival.COM.", "Bob@example.com"] }, gmail.ctx);
    expect(gmail.server.sent.at(-1)?.to).toEqual(["ceo@rival.com", "bob@example.com"]);
    const draft = (await runAction(set, "email.draft_email", { ...letter, to: ["Carol@Example.com."] }, gmail.ctx)) as {
      id: string;
    };
    expect(gmail.server.drafts.get(draft.id)).toBeDefined();
    expect((await runAction(set, "email.get_draft", { id: draft.id }, gmail.ctx)) as { to: string[] }).toMatchObject({
      to: ["carol@example.com"],
    });
  });

  it("refuses a subject with a line break (header injection), and sends nothing", async () => {
    const before = gmail.server.requests.length;
    await expect(
      runAction(set, "email.send_email", { ...letter, subject: "hi\r\nBcc: eve@evil.com" }, gmail.ctx),
    ).rejects.toMatchObject({
      class: "connector_error",
      message: "email.send_message: subject must not contain line breaks",
    });
    expect(gmail.server.requests.length).toBe(before);
  });

  it("refuses a draft id that would change the request path", async () => {
    const before = gmail.server.requests.length;
    await expect(runAction(set, "email.get_draft", { id: "../messages/send" }, gmail.ctx)).rejects.toMatchObject({
      class: "connector_error",
    });
    expect(gmail.server.requests.length).toBe(before);
  });

  it("checks arguments against the action's inputs before any step runs", async () => {
    await expect(
      runAction(set, "email.send_email", { ...letter, to: "bob@example.com" }, gmail.ctx),
    ).rejects.toMatchObject({
      class: "connector_error",
      message: "email.send_email: input `to` must be of type array",
    });
    await expect(runAction(set, "email.send_email", { ...letter, cc: ["x@y.z"] }, gmail.ctx)).rejects.toMatchObject({
      message: "email.send_email: input `cc` is not declared by the action",
    });
    await expect(runAction(set, "email.send_email", { to: ["a@b.c"], subject: "s" }, gmail.ctx)).rejects.toMatchObject({
      message: "email.send_email: input `body` is required",
    });
    await expect(runAction(set, "email.send_email", { ...letter, to: [1] }, gmail.ctx)).rejects.toMatchObject({
      message: "email.send_email: input `to` must hold only string items",
    });
    await expect(runAction(set, "email.nope", {}, gmail.ctx)).rejects.toMatchObject({
      class: "capability_denied",
      message: "unknown action email.nope",
    });
  });

  it("injects the token from the connection: a wrong one is the provider's 401", async () => {
    const wrong = connectorContext(
      dataDirWith(`[email]\nbase_url = "${gmail.server.url}"\ntoken_file = "TOKEN_FILE"\n`, "wrong-token"),
      { plugins: gmail.pool },
    );
    await expect(runAction(set, "email.get_draft", { id: "r1" }, wrong)).rejects.toMatchObject({
      class: "external_api_error",
      details: { status: 401 },
    });
  });
});
