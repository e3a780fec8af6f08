// Shared pieces of the receipt tests: a data directory per test, a keyring, a program, five
// grants, and a signer that writes any header and payload (to build forgeries).
import { createHash, sign, type KeyObject } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { Grant } from "../../src/model/decision.js";
import { CountersignError } from "../../src/model/errors.js";
import { issueReceipt, type IssueInput } from "../../src/receipt/issue.js";
import { openKeyring } from "../../src/store/index.js";
import type { Keyring } from "../../src/receipt/keyring.js";

export const ISSUER = "countersign-test";
export const NOW = new Date("2030-01-01T00:00:00Z");
export const NOW_S = NOW.getTime() / 1000;

export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), "countersign-receipt-"));
}

export async function keyringIn(home: string = tempHome()): Promise<Keyring> {
  return openKeyring(home, NOW);
}

export const PROGRAM = new TextEncoder().encode('export default program({ rationale: "hi", async main() {} });\n');
export const PROGRAM_SHA = sha256(PROGRAM);
export const EMAIL_SHA = "a".repeat(64);
export const FS_SHA = "b".repeat(64);

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

const email = { name: "email", sha256: EMAIL_SHA };
const fs = { name: "fs", sha256: FS_SHA };

/** Five grants, one per op, using most constraint kinds. */
export const GRANTS: Grant[] = [
  {
    op: "email.send_email",
    connector: email,
    args: { to: { in: ["bob@example.com", "carol@example.com"] }, subject: { max_length: 40 } },
    count: { max: 2 },
    distinct: "to",
  },
  { op: "email.get_draft", connector: email, args: { id: { glob: "draft-*" } }, count: { max: null } },
  { op: "fs.write_file", connector: fs, args: { path: { under: "/home/u/reports" } }, count: { max: 3 } },
  {
    op: "fs.read_file",
    connector: fs,
    args: { path: { all: [{ under: "/home/u" }, { not: { glob: "*.key" } }] } },
    count: { max: null },
  },
  { op: "email.list_drafts", connector: email, args: {}, count: { max: 1 } },
];

export function input(overrides: Partial<IssueInput> = {}): IssueInput {
  return {
    requestId: "req-1",
    program: { sha256: PROGRAM_SHA, entry: "program.ts" },
    decision: "approved_once",
    policySha256: "c".repeat(64),
    grants: GRANTS,
    across: [],
    approver: "alice",
    issuer: ISSUER,
    ...overrides,
  };
}

export function issue(keys: Keyring, overrides: Partial<IssueInput> = {}, now: Date = NOW): Promise<string> {
  return issueReceipt(input(overrides), keys, now);
}

const b64 = (value: unknown) =>
  Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

/** A compact JWS with any header and payload, Ed25519-signed by `key`. */
export function signRaw(header: unknown, payload: unknown, key: KeyObject): string {
  const signingInput = `${b64(header)}.${b64(payload)}`;
  return `${signingInput}.${sign(null, Buffer.from(signingInput), key).toString("base64url")}`;
}

/** The payload of a token, decoded (to re-sign a modified copy). */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"));
}

export function headerOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString("utf8"));
}

/** Await `promise` (or run `fn`) and check it fails with exactly this class and reason. */
export async function expectRefused(
  run: () => unknown,
  errorClass: string,
  reason?: string,
): Promise<CountersignError> {
  let caught: unknown;
  try {
    await run();
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected ${errorClass}/${reason}`).toBeInstanceOf(CountersignError);
  const err = caught as CountersignError;
  expect({ class: err.class, reason: err.details?.reason }).toEqual({ class: errorClass, reason });
  return err;
}
