import { beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../../src/model/json.js";
import { checkCall, type CallAttempt } from "../../src/receipt/check-call.js";
import { jwks } from "../../src/receipt/jwks.js";
import type { Keyring } from "../../src/receipt/keyring.js";
import type { VerifiedReceipt } from "../../src/receipt/verified-receipt.js";
import { verifyReceipt } from "../../src/receipt/verify.js";
import { EMAIL_SHA, expectRefused, FS_SHA, GRANTS, ISSUER, issue, keyringIn, NOW, NOW_S, PROGRAM } from "./fixtures.js";

let keys: Keyring;
let token: string;
beforeAll(async () => {
  keys = await keyringIn();
  token = await issue(keys);
});
const fresh = (): Promise<VerifiedReceipt> =>
  verifyReceipt(token, { jwks: jwks(keys, NOW), issuer: ISSUER, programBytes: PROGRAM, now: NOW });

const email = { name: "email", sha256: EMAIL_SHA };
const send = (args: Record<string, Json>): CallAttempt => ({ op: "email.send_email", connector: email, args });
const write = (path: string): CallAttempt => ({
  op: "fs.write_file",
  connector: { name: "fs", sha256: FS_SHA },
  args: { path, content: "x" },
});
const refused = (v: VerifiedReceipt, call: CallAttempt, reason: string) =>
  expectRefused(() => checkCall(v, call, NOW), "grant_violation", reason);

describe("checkCall admits", () => {
  it("calls inside their grants and records them in order", async () => {
    const v = await fresh();
    checkCall(v, send({ to: ["bob@example.com"], subject: "Report" }), NOW);
    checkCall(v, write("/home/u/reports/w1.txt"), NOW);
    checkCall(
      v,
      { op: "fs.read_file", connector: { name: "fs", sha256: FS_SHA }, args: { path: "/home/u/notes.txt" } },
      NOW,
    );
    checkCall(v, { op: "email.list_drafts", connector: email, args: {} }, NOW);
    expect(v.calls.map((c) => c.op)).toEqual([
      "email.send_email",
      "fs.write_file",
      "fs.read_file",
      "email.list_drafts",
    ]);
  });

  it("unbounded counts (count.max null) as often as asked", async () => {
    const v = await fresh();
    for (let i = 0; i < 50; i++)
      checkCall(v, { op: "email.get_draft", connector: email, args: { id: `draft-${i}` } }, NOW);
    expect(v.calls).toHaveLength(50);
  });
});

describe("checkCall refuses", () => {
  it("an op without a grant, naming it", async () => {
    const err = await refused(await fresh(), { op: "email.delete_all", connector: email, args: {} }, "no_grant");
    expect(err.details).toEqual({ reason: "no_grant", op: "email.delete_all" });
    expect(err.message).toContain("email.delete_all");
    await refused(await fresh(), { op: "__proto__", connector: email, args: {} }, "no_grant");
  });

  it("the wrong connector hash, or name", async () => {
    await refused(
      await fresh(),
      { ...send({ to: ["bob@example.com"], subject: "x" }), connector: { name: "email", sha256: "f".repeat(64) } },
      "connector_mismatch",
    );
    await refused(
      await fresh(),
      { ...send({ to: ["bob@example.com"], subject: "x" }), connector: { name: "fs", sha256: EMAIL_SHA } },
      "connector_mismatch",
    );
  });

  it("one argument outside its grant, naming the op and the argument", async () => {
    const err = await refused(
      await fresh(),
      send({ to: ["bob@example.com", "eve@evil.com"], subject: "x" }),
      "argument_refused",
    );
    expect(err.details).toEqual({ reason: "argument_refused", op: "email.send_email", input: "to" });
    expect(err.message).toMatch(/email\.send_email.*"to"/);
    await refused(await fresh(), send({ to: ["bob@example.com"], subject: "x".repeat(41) }), "argument_refused");
    await refused(await fresh(), write("/home/u/reports/../.ssh/authorized_keys"), "argument_refused");
    await refused(
      await fresh(),
      { op: "fs.read_file", connector: { name: "fs", sha256: FS_SHA }, args: { path: "/home/u/id.key" } },
      "argument_refused",
    );
  });

  it("a constrained argument that is not passed", async () => {
    const err = await refused(await fresh(), send({ subject: "x" }), "missing_argument");
    expect(err.details).toMatchObject({ input: "to" });
    // an inherited property is not a passed argument
    await refused(
      await fresh(),
      send(Object.create({ to: ["bob@example.com"], subject: "x" }) as Record<string, Json>),
      "missing_argument",
    );
  });

  it("one call too many, and a refused call does not use up the count", async () => {
    const v = await fresh();
    await refused(v, write("/etc/passwd"), "argument_refused");
    for (let i = 1; i <= 3; i++) checkCall(v, write(`/home/u/reports/w${i}.txt`), NOW);
    const err = await refused(v, write("/home/u/reports/w4.txt"), "count_exceeded");
    expect(err.message).toContain("3 calls");
    expect(v.calls).toHaveLength(3);
  });

  it("a repeated value of the distinct input, across calls and within one list", async () => {
    const v = await fresh();
    checkCall(v, send({ to: ["bob@example.com"], subject: "1" }), NOW);
    const err = await refused(v, send({ to: ["bob@example.com"], subject: "2" }), "not_distinct");
    expect(err.details).toEqual({ reason: "not_distinct", op: "email.send_email", input: "to" });
    await refused(
      await fresh(),
      send({ to: ["carol@example.com", "carol@example.com"], subject: "1" }),
      "not_distinct",
    );
    checkCall(v, send({ to: ["carol@example.com"], subject: "2" }), NOW); // the refused one left no trace
    expect(v.calls).toHaveLength(2);
  });

  it("any call once the receipt has expired, mid-run", async () => {
    const v = await fresh();
    checkCall(v, write("/home/u/reports/a"), new Date((NOW_S + 304) * 1000));
    await expectRefused(
      () => checkCall(v, write("/home/u/reports/b"), new Date((NOW_S + 305) * 1000)),
      "receipt_invalid",
      "expired",
    );
  });

  it("grants that were changed after verification: they are frozen", async () => {
    const v = await fresh();
    expect(() => {
      (v.claims.grants[2]!.args as Record<string, unknown>).path = { under: "/" };
    }).toThrow(TypeError);
    await refused(v, write("/etc/passwd"), "argument_refused");
  });
});

describe("limits across grants: one ledger for several ops", () => {
  const across = [
    { ops: ["email.send_email", "fs.write_file"], count: { max: 3 } },
    { ops: ["email.send_email", "email.get_draft"], distinct: "to" },
  ];
  const verifiedWith = async (limits: typeof across) =>
    verifyReceipt(
      await issue(keys, {
        across: limits,
        grants: GRANTS.map((g) => (g.op === "email.get_draft" ? { ...g, args: {} } : g)),
      }),
      {
        jwks: jwks(keys, NOW),
        issuer: ISSUER,
        programBytes: PROGRAM,
        now: NOW,
      },
    );
  const draft = (to: Json): CallAttempt => ({ op: "email.get_draft", connector: email, args: { id: "draft-1", to } });

  it("a count over several ops: each op within its own grant, all of them within the shared bound", async () => {
    const v = await verifiedWith(across);
    checkCall(v, send({ to: ["bob@example.com"], subject: "1" }), NOW);
    checkCall(v, write("/home/u/reports/a"), NOW);
    checkCall(v, write("/home/u/reports/b"), NOW);
    // fs.write_file's own grant allows 3 and send_email's 2, but the three ops share 3.
    const err = await refused(v, write("/home/u/reports/c"), "count_exceeded");
    expect(err.message).toContain("email.send_email, fs.write_file together");
    await refused(v, send({ to: ["carol@example.com"], subject: "2" }), "count_exceeded");
    expect(v.calls).toHaveLength(3);
  });

  it("distinct over several ops: a value admitted by one op repeats for the other", async () => {
    const v = await verifiedWith(across);
    checkCall(v, send({ to: ["bob@example.com"], subject: "1" }), NOW);
    const err = await refused(v, draft(["BOB@example.com."]), "not_distinct");
    expect(err.details).toEqual({ reason: "not_distinct", op: "email.get_draft", input: "to" });
    checkCall(v, draft(["carol@example.com"]), NOW);
    await refused(v, send({ to: ["carol@example.com"], subject: "2" }), "not_distinct");
    await refused(v, { op: "email.get_draft", connector: email, args: { id: "draft-2" } }, "missing_argument");
  });

  it("a call refused by a shared limit uses up nothing, not even its own grant's count", async () => {
    const v = await verifiedWith([{ ops: ["email.send_email", "fs.write_file"], count: { max: 1 } }]);
    checkCall(v, write("/home/u/reports/a"), NOW);
    await refused(v, send({ to: ["bob@example.com"], subject: "1" }), "count_exceeded");
    const alone = await verifiedWith([{ ops: ["email.send_email", "fs.write_file"], count: { max: 2 } }]);
    checkCall(alone, send({ to: ["bob@example.com"], subject: "1" }), NOW);
    await refused(alone, send({ to: ["bob@example.com"], subject: "2" }), "not_distinct"); // the grant's own distinct
    checkCall(alone, send({ to: ["carol@example.com"], subject: "2" }), NOW); // the shared count was not used up by the refusal
  });

  it("a grant that allows no call says so", async () => {
    const v = await verifyReceipt(await issue(keys, { grants: [{ ...GRANTS[2]!, count: { max: 0 } }] }), {
      jwks: jwks(keys, NOW),
      issuer: ISSUER,
      programBytes: PROGRAM,
      now: NOW,
    });
    const err = await refused(v, write("/home/u/reports/a"), "count_exceeded");
    expect(err.message).toBe("fs.write_file: the grant allows no call");
  });
});
