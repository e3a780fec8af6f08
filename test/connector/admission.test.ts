// No side effect without a checked receipt, by construction: executeAction runs only what
// admitCall (after checkCall) or admitPreview (read-only actions without approval) admitted.
import { createContext, Script } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import { admitCall, admitPreview, type Admission } from "../../src/connector/admission.js";
import { connectorContext } from "../../src/config/index.js";
import type { ConnectorContext } from "../../src/connector/context.js";
import { executeAction } from "../../src/connector/execute-action.js";
import * as connector from "../../src/connector/index.js";
import { VerifiedReceipt } from "../../src/receipt/verified-receipt.js";
import { dataDirWith, shippedManifests } from "./fixtures.js";

const set = shippedManifests();
let server: GmailServer;
let ctx: ConnectorContext;
beforeAll(async () => {
  server = await startGmailServer({ token: "secret-token" });
  ctx = connectorContext(dataDirWith(`[email]\nbase_url = "${server.url}"\ntoken_file = "TOKEN_FILE"\n`));
});
afterAll(() => server.close());

const letter = { to: ["bob@example.com"], subject: "s", body: "b" };

/** A verified receipt (made directly: signing is test/receipt's) granting send_email to bob once. */
function bobOnce(): VerifiedReceipt {
  const email = set.connectors.get("email")!;
  const grant = {
    op: "email.send_email",
    connector: { name: "email", sha256: email.manifest.sha256 },
    args: { to: { elements: { in: ["bob@example.com"] } } },
    count: { max: 1 },
  };
  return new VerifiedReceipt("k", {
    iss: "t",
    aud: "countersign-runner",
    sub: "r",
    iat: 0,
    nbf: 0,
    exp: 4_102_444_800,
    jti: "A".repeat(22),
    program: { sha256: "0".repeat(64), entry: "p.ts" },
    decision: "auto_approved",
    policy: { sha256: "0".repeat(64) },
    grants: [grant],
    across: [],
  });
}

describe("executeAction", () => {
  it("is not part of the connector module's public surface", () => {
    expect(Object.keys(connector)).not.toContain("executeAction");
    expect(Object.keys(connector)).not.toContain("admitPreview");
  });

  it("refuses an admission it did not issue, and sends nothing", async () => {
    const forged: Admission = Object.freeze({ op: "email.send_email", args: letter, scope: {} });
    await expect(executeAction(set, forged, ctx)).rejects.toMatchObject({ class: "grant_violation" });
    await expect(
      executeAction(set, { ...admitPreview(set, "email.get_draft", { id: "r1" }), op: "email.send_email" }, ctx),
    ).rejects.toMatchObject({ class: "grant_violation" });
    expect(server.requests).toEqual([]);
  });

  it("runs what was checked: the admitted arguments are a frozen copy", () => {
    const args = { ...letter, to: [...letter.to] };
    const admission = admitCall(bobOnce(), set, "email.send_email", args);
    args.to[0] = "eve@evil.com";
    expect(admission.args.to).toEqual(["bob@example.com"]);
    expect(() => (admission.args.to as string[]).push("eve@evil.com")).toThrow(TypeError);
  });
});

describe("canonical arguments", () => {
  it("checks and admits addresses in their canonical form, item by item", () => {
    expect(admitCall(bobOnce(), set, "email.send_email", { ...letter, to: ["Bob@Example.COM."] }).args.to).toEqual([
      "bob@example.com",
    ]);
    // One dot dropped here and one more in the connector would send another text than was checked.
    expect(() => admitCall(bobOnce(), set, "email.send_email", { ...letter, to: ["bob@example.com.."] })).toThrow(
      expect.objectContaining({
        class: "grant_violation",
        details: expect.objectContaining({
          reason: "non_canonical",
          input: "to",
          raw: "bob@example.com..",
          canonical: "bob@example.com.",
        }),
      }),
    );
  });

  it("refuses a path outside its lexical normal form before any check, naming the input and the raw text", () => {
    for (const path of [
      "/home/u/Sandbox/../../../etc/passwd",
      "/home/u/Sandbox/./x",
      "/home/u//x",
      "/home/u/Sandbox/",
      "Sandbox/x",
    ]) {
      for (const op of ["fs.read_file", "fs.list_dir"]) {
        expect(() => admitPreview(set, op, { path }), path).toThrow(
          expect.objectContaining({
            class: "grant_violation",
            details: expect.objectContaining({ reason: "non_canonical", input: "path", raw: path }),
          }),
        );
      }
    }
    expect(admitPreview(set, "fs.read_file", { path: "/home/u/Sandbox/x" }).args.path).toBe("/home/u/Sandbox/x");
  });
});

describe("admitPreview", () => {
  it("admits only actions that only read and need no approval", () => {
    expect(admitPreview(set, "email.get_draft", { id: "r1" }).op).toBe("email.get_draft");
    for (const op of ["email.send_email", "email.send_draft", "email.draft_email", "fs.write_file"]) {
      expect(() => admitPreview(set, op, {})).toThrow(expect.objectContaining({ class: "capability_denied" }));
    }
  });
});

describe("callWithReceipt marshals the program's arguments without running its code", () => {
  it("refuses an argument with a toJSON or a getter from the program's realm, and sends nothing", async () => {
    const realm = createContext({ ran: 0 });
    const hostile = new Script(`[
      { to: ["bob@example.com"], subject: "s", body: "b", toJSON() { ran++; return { to: ["eve@evil.com"], subject: "s", body: "b" }; } },
      { get to() { ran++; return ran > 1 ? ["eve@evil.com"] : ["bob@example.com"]; }, subject: "s", body: "b" },
    ]`).runInContext(realm) as unknown[];
    for (const args of hostile) {
      await expect(connector.callWithReceipt(bobOnce(), set, "email.send_email", args, ctx)).rejects.toMatchObject({
        class: "grant_violation",
        details: { reason: "not_plain_data" },
      });
    }
    expect(realm.ran).toBe(0);
    expect(server.requests).toEqual([]);
  });

  it("sends plain data from the program's realm that fits the grant", async () => {
    const args = new Script(`({ to: ["bob@example.com"], subject: "s", body: "b" })`).runInContext(createContext({}));
    await connector.callWithReceipt(bobOnce(), set, "email.send_email", args, ctx);
    expect(server.sent.at(-1)).toMatchObject({ to: ["bob@example.com"] });
  });
});
