import { describe, expect, it } from "vitest";
import { DEFAULT_LIFETIME_SECONDS, MAX_RECEIPT_BYTES, RECEIPT_TYP } from "../../src/model/receipt.js";
import { issueReceiptRecord } from "../../src/receipt/issue.js";
import {
  expectRefused,
  headerOf,
  claimsOf,
  input,
  issue,
  keyringIn,
  NOW,
  NOW_S,
  PROGRAM_SHA,
  GRANTS,
  ISSUER,
} from "./fixtures.js";

describe("issueReceipt", () => {
  it("writes the header and every claim", async () => {
    const keys = await keyringIn();
    const token = await issue(keys);
    expect(headerOf(token)).toEqual({ alg: "EdDSA", typ: RECEIPT_TYP, kid: keys.active.kid });
    const claims = claimsOf(token);
    expect(claims).toEqual({
      iss: ISSUER,
      aud: "countersign-runner",
      sub: "req-1",
      iat: NOW_S,
      nbf: NOW_S,
      exp: NOW_S + DEFAULT_LIFETIME_SECONDS,
      jti: claims.jti,
      program: { sha256: PROGRAM_SHA, entry: "program.ts" },
      decision: "approved_once",
      policy: { sha256: "c".repeat(64) },
      grants: GRANTS,
      across: [],
      approver: "alice",
    });
    expect(claims.jti).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it("gives every receipt its own 128-bit jti", async () => {
    const keys = await keyringIn();
    const jtis = new Set(await Promise.all(Array.from({ length: 50 }, async () => claimsOf(await issue(keys)).jti)));
    expect(jtis.size).toBe(50);
  });

  it("takes a configured lifetime up to 900 s, and refuses more rather than clamping", async () => {
    const keys = await keyringIn();
    expect(claimsOf(await issue(keys, { lifetimeSeconds: 900 })).exp).toBe(NOW_S + 900);
    expect(claimsOf(await issue(keys, { lifetimeSeconds: 1 })).exp).toBe(NOW_S + 1);
    for (const bad of [901, 7200, 0, -5, 1.5, Number.NaN]) {
      const err = await expectRefused(() => issue(keys, { lifetimeSeconds: bad }), "config_error");
      expect(err.message).toContain("900");
    }
  });

  it("issues for approvals only", async () => {
    const keys = await keyringIn();
    for (const decision of ["auto_rejected", "ask", "rejected", "request_more", "expired"] as const) {
      const err = await expectRefused(() => issue(keys, { decision }), "receipt_invalid", "bad_claims");
      expect(err.message).toContain(decision);
    }
    expect(claimsOf(await issue(keys, { decision: "approved_remember" })).decision).toBe("approved_remember");
    expect(claimsOf(await issue(keys, { decision: "auto_approved", approver: undefined }))).not.toHaveProperty(
      "approver",
    );
  });

  it("requires an approver when a person decided, and none for auto_approved", async () => {
    const keys = await keyringIn();
    await expectRefused(
      () => issue(keys, { decision: "approved_once", approver: undefined }),
      "receipt_invalid",
      "bad_claims",
    );
    await expectRefused(
      () => issue(keys, { decision: "approved_remember", approver: undefined }),
      "receipt_invalid",
      "bad_claims",
    );
    await expectRefused(
      () => issue(keys, { decision: "auto_approved", approver: "alice" }),
      "receipt_invalid",
      "bad_claims",
    );
  });

  it("refuses claims the verifier would refuse (a bad hash, a glob op, a limit across no grant)", async () => {
    const keys = await keyringIn();
    await expectRefused(
      () => issue(keys, { program: { sha256: "nothex", entry: "p.ts" } }),
      "receipt_invalid",
      "bad_claims",
    );
    await expectRefused(
      () => issue(keys, { grants: [{ ...GRANTS[0]!, op: "email.*" }] }),
      "receipt_invalid",
      "bad_claims",
    );
    await expectRefused(
      () => issue(keys, { across: [{ ops: ["email.send_email", "email.send_draft"], count: { max: 1 } }] }),
      "receipt_invalid",
      "bad_claims",
    );
    await expectRefused(
      () => issue(keys, { across: [{ ops: ["email.send_email", "email.send_email"], count: { max: 1 } }] }),
      "receipt_invalid",
      "bad_claims",
    );
    await expectRefused(
      () => issue(keys, { across: [{ ops: ["email.send_email", "fs.write_file"] }] }),
      "receipt_invalid",
      "bad_claims",
    );
  });

  it("carries limits across grants", async () => {
    const keys = await keyringIn();
    const across = [
      { ops: ["email.send_email", "fs.write_file"], count: { max: 2 } },
      { ops: ["email.send_email", "email.get_draft"], distinct: "to" },
    ];
    expect(claimsOf(await issue(keys, { across })).across).toEqual(across);
  });

  it("refuses a receipt larger than runners accept, rather than loosen a grant to fit", async () => {
    const keys = await keyringIn();
    const long = { ...GRANTS[0]!, args: { ...GRANTS[0]!.args, body: { in: ["x".repeat(MAX_RECEIPT_BYTES)] } } };
    const err = await expectRefused(() => issue(keys, { grants: [long] }), "resource_limit_exceeded", "too_large");
    expect(err.message).toMatch(/^cannot issue receipt: it would take \d+ bytes, more than the 65536 a runner accepts/);
    // Just under the limit is fine.
    const fits = { ...GRANTS[0]!, args: { ...GRANTS[0]!.args, body: { in: ["x".repeat(MAX_RECEIPT_BYTES / 2)] } } };
    expect((await issue(keys, { grants: [fits] })).length).toBeLessThanOrEqual(MAX_RECEIPT_BYTES);
  });

  it("answers the jti and exp it signed", async () => {
    const keys = await keyringIn();
    const issued = issueReceiptRecord(input(), keys, NOW);
    expect(claimsOf(issued.token)).toMatchObject({ jti: issued.jti, exp: issued.exp });
  });

  it("signs an equal decision again with the same claims in the same order, only its own claims differ", async () => {
    const keys = await keyringIn();
    const grants = [{ ...GRANTS[0]!, args: { to: { in: ["dave@example.com"] } } }]; // claims no other test issued yet
    const first = claimsOf(await issue(keys, { grants, requestId: "req-a" }));
    const again = claimsOf(
      await issue(keys, { grants: structuredClone(grants), requestId: "req-b" }, new Date(NOW.getTime() + 7000)),
    );
    expect(Object.keys(again)).toEqual(Object.keys(first));
    expect(again).toEqual({
      ...first,
      sub: "req-b",
      iat: NOW_S + 7,
      nbf: NOW_S + 7,
      exp: NOW_S + 7 + DEFAULT_LIFETIME_SECONDS,
      jti: again.jti,
    });
    expect(again.jti).not.toBe(first.jti);
  });

  it("signs the claims' text exactly as JSON writes the schema's output, kept and whole-checked claims alike", async () => {
    const keys = await keyringIn();
    const payload = (token: string): string => Buffer.from(token.split(".")[1]!, "base64url").toString("utf8");
    const grants = [{ ...GRANTS[0]!, args: { to: { in: ["erin@example.com"] } } }];
    const tokens = [
      await issue(keys, { grants, requestId: 'req-"quoted"\\' }), // new claims: checked by the schema, then kept
      await issue(keys, { grants, requestId: "req-é" }, new Date(NOW.getTime() + 1000)), // from the kept claims
      await issue(keys, { grants: [{ ...GRANTS[1]!, distinct: undefined }] }), // not kept exactly by JSON: checked whole
    ];
    for (const token of tokens) expect(payload(token)).toBe(JSON.stringify(claimsOf(token)));
    expect(claimsOf(tokens[0]!).sub).toBe('req-"quoted"\\');
    expect(claimsOf(tokens[1]!)).toMatchObject({ sub: "req-é", iat: NOW_S + 1 });
  });

  it("refuses what JSON would change, even after signing the value it would change to", async () => {
    const keys = await keyringIn();
    const unlimited = [{ ...GRANTS[1]! }]; // count.max null: unlimited
    await issue(keys, { grants: unlimited });
    for (const max of [Number.NaN, Number.POSITIVE_INFINITY]) {
      await expectRefused(
        () => issue(keys, { grants: [{ ...GRANTS[1]!, count: { max } }] }),
        "receipt_invalid",
        "bad_claims",
      );
    }
    const inList = [{ ...GRANTS[0]!, args: { to: { in: [null] } } }];
    await issue(keys, { grants: inList });
    await expectRefused(
      () => issue(keys, { grants: [{ ...GRANTS[0]!, args: { to: { in: [undefined as never] } } }] }),
      "receipt_invalid",
      "bad_claims",
    );
    await expectRefused(
      () => issue(keys, { grants: [{ ...GRANTS[0]!, args: { to: { in: [new Date(0) as never] } } }] }),
      "receipt_invalid",
      "bad_claims",
    );
    // An optional member left undefined is as before: absent.
    expect(
      (claimsOf(await issue(keys, { grants: [{ ...GRANTS[1]!, distinct: undefined }] })).grants as object[])[0],
    ).not.toHaveProperty("distinct");
  });

  it("signs the claims it is given now when they equal the last ones but for a key's place, a member changed since, or a hole", async () => {
    const keys = await keyringIn();
    const payload = (token: string): string => Buffer.from(token.split(".")[1]!, "base64url").toString("utf8");
    const grants = [{ ...GRANTS[0]!, args: { to: { in: ["frank@example.com"] }, subject: { max_length: 9 } } }];
    await issue(keys, { grants });
    // The same members in another order are other claims: signed in their own order.
    const reordered = claimsOf(
      await issue(keys, {
        grants: [{ ...grants[0]!, args: { subject: { max_length: 9 }, to: { in: ["frank@example.com"] } } }],
      }),
    );
    expect(Object.keys((reordered.grants as { args: object }[])[0]!.args)).toEqual(["subject", "to"]);
    // Claims changed in place after they were signed: what is signed is what they say now.
    grants[0]!.args.to.in[0] = "grace@example.com";
    const changed = await issue(keys, { grants });
    expect(payload(changed)).toContain("grace@example.com");
    expect(payload(changed)).not.toContain("frank@example.com");
    // A hole where the last claims had null: JSON writes both as null, but the hole is no value.
    await issue(keys, { grants: [{ ...grants[0]!, args: { to: { in: ["grace@example.com", null] } } }] });
    const holed: unknown[] = ["grace@example.com"];
    holed.length = 2;
    await expectRefused(
      () => issue(keys, { grants: [{ ...grants[0]!, args: { to: { in: holed as never } } }] }),
      "receipt_invalid",
      "bad_claims",
    );
  });

  it("checks its own claims every time, also for claims signed before", async () => {
    const keys = await keyringIn();
    await issue(keys);
    await expectRefused(() => issue(keys, { requestId: "" }), "receipt_invalid", "bad_claims");
    await expectRefused(() => issue(keys, {}, new Date(Number.NaN)), "receipt_invalid", "bad_claims");
    await expectRefused(() => issue(keys, {}, new Date(-5000)), "receipt_invalid", "bad_claims");
  });
});
