import { beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../../src/model/json.js";
import { checkCall, type CallAttempt } from "../../src/receipt/check-call.js";
import { jwks } from "../../src/receipt/jwks.js";
import type { Keyring } from "../../src/receipt/keyring.js";
import type { VerifiedReceipt } from "../../src/receipt/verified-receipt.js";
import { verifyReceipt } from "../../src/receipt/verify.js";
import { EMAIL_SHA, expectRefused, FS_SHA, ISSUER, issue, keyringIn, NOW, NOW_S, PROGRAM } from "./fixtures.js";

let keys: Keyring;
let token: string;
beforeAll(async () => {
  keys = await keyringIn();
  token = await issue(keys);
});
const fresh = (): Promise<VerifiedReceipt> => verifyReceipt(token, { jwks: jwks(keys, NOW), issuer: ISSUER, programBytes: PROGRAM, now: NOW });

const email = { name: "email", sha256: EMAIL_SHA };
const send = (args: Record<string, Json>): CallAttempt => ({ op: "email.send_email", connector: email, args });
const write = (path: string): CallAttempt => ({ op: "fs.write_file", connector: { name: "fs", sha256: FS_SHA }, args: { path, content: "x" } });
const refused = (v: VerifiedReceipt, call: CallAttempt, reason: string) => expectRefused(() => checkCall(v, call, NOW), "grant_violation", reason);

describe("checkCall admits", () => {
  it("calls inside their grants and records them in order", async () => {
    const v = await fresh();
    checkCall(v, send({ to: ["bob@example.com"], subject: "Report" }), NOW);
    checkCall(v, write("/home/u/reports/w1.txt"), NOW);
    checkCall(v, { op: "fs.read_file", connector: { name: "fs", sha256: FS_SHA }, args: { path: "/home/u/notes.txt" } }, NOW);
    checkCall(v, { op: "email.list_drafts", connector: email, args: {} }, NOW);
    expect(v.calls.map((c) => c.op)).toEqual(["email.send_email", "fs.write_file", "fs.read_file", "email.list_drafts"]);
  });

  it("unbounded counts (count.max null) as often as asked", async () => {
    const v = await fresh();
    for (let i = 0; i < 50; i++) checkCall(v, { op: "email.get_draft", connector: email, args: { id: `draft-${i}` } }, NOW);
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
    await refused(await fresh(), { ...send({ to: ["bob@example.com"], subject: "x" }), connector: { name: "email", sha256: "f".repeat(64) } }, "connector_mismatch");
    await refused(await fresh(), { ...send({ to: ["bob@example.com"], subject: "x" }), connector: { name: "fs", sha256: EMAIL_SHA } }, "connector_mismatch");
  });

  it("one argument outside its grant, naming the op and the argument", async () => {
    const err = await refused(await fresh(), send({ to: ["bob@example.com", "eve@evil.com"], subject: "x" }), "argument_refused");
    expect(err.details).toEqual({ reason: "argument_refused", op: "email.send_email", input: "to" });
    expect(err.message).toMatch(/email\.send_email.*"to"/);
    await refused(await fresh(), send({ to: ["bob@example.com"], subject: "x".repeat(41) }), "argument_refused");
    await refused(await fresh(), write("/home/u/reports/../.ssh/authorized_keys"), "argument_refused");
    await refused(await fresh(), { op: "fs.read_file", connector: { name: "fs", sha256: FS_SHA }, args: { path: "/home/u/id.key" } }, "argument_refused");
  });

  it("a constrained argument that is not passed", async () => {
    const err = await refused(await fresh(), send({ subject: "x" }), "missing_argument");
    expect(err.details).toMatchObject({ input: "to" });
    // an inherited property is not a passed argument
    await refused(await fresh(), send(Object.create({ to: ["bob@example.com"], subject: "x" }) as Record<string, Json>), "missing_argument");
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
    await refused(await fresh(), send({ to: ["carol@example.com", "carol@example.com"], subject: "1" }), "not_distinct");
    checkCall(v, send({ to: ["carol@example.com"], subject: "2" }), NOW); // the refused one left no trace
    expect(v.calls).toHaveLength(2);
  });

  it("any call once the receipt has expired, mid-run", async () => {
    const v = await fresh();
    checkCall(v, write("/home/u/reports/a"), new Date((NOW_S + 304) * 1000));
    await expectRefused(() => checkCall(v, write("/home/u/reports/b"), new Date((NOW_S + 305) * 1000)), "receipt_invalid", "expired");
  });

  it("grants that were changed after verification: they are frozen", async () => {
    const v = await fresh();
    expect(() => {
      (v.claims.grants[2]!.args as Record<string, unknown>).path = { under: "/" };
    }).toThrow(TypeError);
    await refused(v, write("/etc/passwd"), "argument_refused");
  });
});
