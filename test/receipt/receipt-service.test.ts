// The example ticket service (examples/receipt-service), run as its own process on loopback: it
// acts only under a receipt from the real issuer that admits the call, and every refusal is a
// clear error that creates nothing.
import { type ChildProcess, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Grant } from "../../src/model/decision.js";
import { jwks } from "../../src/receipt/jwks.js";
import type { Keyring } from "../../src/receipt/keyring.js";
import { claimsOf, headerOf, issue, keyringIn, PROGRAM, signRaw, tempHome } from "./fixtures.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ISSUER = "countersign-test";
const TICKETS = { name: "tickets", sha256: "f".repeat(64) };
const GRANT: Grant = {
  op: "tickets.create_ticket",
  connector: TICKETS,
  args: { queue: { in: ["support"] }, title: { max_length: 40 } },
  count: { max: 2 },
};

let keys: Keyring;
let service: ChildProcess;
let url: string;

beforeAll(async () => {
  keys = await keyringIn();
  const jwksFile = join(tempHome(), "jwks.json");
  writeFileSync(jwksFile, JSON.stringify(jwks(keys)));
  service = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "examples/receipt-service/main.ts",
      "--jwks",
      jwksFile,
      "--issuer",
      ISSUER,
      "--connector-sha256",
      TICKETS.sha256,
      "--port",
      "0",
    ],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  url = await new Promise<string>((resolve, reject) => {
    let out = "";
    service.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const match = /receipt service on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match !== null) resolve(match[1]!);
    });
    service.once("exit", (code) => reject(new Error(`the service exited (${code}) before it listened`)));
  });
});

afterAll(() => {
  service?.kill("SIGTERM");
});

/** A receipt for one ticket grant, from the real issuer, valid now by the service's clock. */
const receipt = (over: Parameters<typeof issue>[1] = {}, at: Date = new Date()) =>
  issue(keys, { issuer: ISSUER, grants: [GRANT], ...over }, at);

async function post(
  path: string,
  body: unknown,
  headers: Record<string, string> = { "content-type": "application/json" },
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const postRun = (token: string, program: Uint8Array = PROGRAM) =>
  post("/runs", { receipt: token, program: Buffer.from(program).toString("base64") });
const call = (run: string, args: Record<string, unknown>, op = "tickets.create_ticket") =>
  post(`/runs/${run}/calls`, { op, args });

async function ticketCount(): Promise<number> {
  return ((await (await fetch(`${url}/tickets`)).json()) as { tickets: unknown[] }).tickets.length;
}

function refused(res: { status: number; body: any }, errorClass: string, reason: string): void {
  expect({ status: res.status, class: res.body.error?.class, reason: res.body.error?.details?.reason }).toEqual({
    status: 403,
    class: errorClass,
    reason,
  });
}

describe("the example receipt service", () => {
  it("admits a call its receipt grants, and creates the ticket", async () => {
    const started = await postRun(await receipt());
    expect(started.status).toBe(201);
    const res = await call(started.body.run, { queue: "support", title: "Printer on fire" });
    expect(res).toEqual({
      status: 200,
      body: { ticket: expect.objectContaining({ queue: "support", title: "Printer on fire", body: null }) },
    });
  });

  it("refuses arguments outside the grant, and a call beyond its count, creating nothing", async () => {
    const { body } = await postRun(await receipt());
    const before = await ticketCount();
    refused(await call(body.run, { queue: "billing", title: "Refund me" }), "grant_violation", "argument_refused");
    refused(await call(body.run, { queue: "support", title: "x".repeat(41) }), "grant_violation", "argument_refused");
    expect(await ticketCount()).toBe(before);
    // the refusals used up nothing: both granted calls still pass, the third does not
    expect((await call(body.run, { queue: "support", title: "one" })).status).toBe(200);
    expect((await call(body.run, { queue: "support", title: "two" })).status).toBe(200);
    const third = await call(body.run, { queue: "support", title: "three" });
    refused(third, "grant_violation", "count_exceeded");
    expect(third.body.error.details.op).toBe("tickets.create_ticket");
    expect(await ticketCount()).toBe(before + 2);
  });

  it("starts one run per receipt: a replay is refused", async () => {
    const token = await receipt();
    expect((await postRun(token)).status).toBe(201);
    refused(await postRun(token), "receipt_invalid", "replayed");
  });

  it("refuses a receipt for other program bytes, an expired one, and one the authority did not sign", async () => {
    refused(await postRun(await receipt(), new Uint8Array([...PROGRAM, 10])), "receipt_invalid", "program_mismatch");
    refused(await postRun(await receipt({}, new Date(Date.now() - 600_000))), "receipt_invalid", "expired");
    const stranger = await keyringIn(tempHome());
    refused(
      await postRun(await issue(stranger, { issuer: ISSUER, grants: [GRANT] }, new Date())),
      "receipt_invalid",
      "unknown_kid",
    );
    const good = await receipt();
    const attacker = generateKeyPairSync("ed25519");
    refused(
      await postRun(signRaw(headerOf(good), claimsOf(good), attacker.privateKey)),
      "receipt_invalid",
      "bad_signature",
    );
    refused(await postRun(await receipt({ issuer: "someone-else" })), "receipt_invalid", "bad_issuer");
    refused(await postRun("a.b.c"), "receipt_invalid", "malformed");
  });

  it("refuses a widened grant re-signed by another key, and a call through another connector's grant", async () => {
    const good = await receipt();
    const attacker = generateKeyPairSync("ed25519");
    const widened = { ...claimsOf(good), grants: [{ ...GRANT, args: {}, count: { max: null } }] };
    refused(await postRun(signRaw(headerOf(good), widened, attacker.privateKey)), "receipt_invalid", "bad_signature");
    const other = { ...GRANT, connector: { name: "tickets", sha256: "0".repeat(64) } };
    const { body } = await postRun(await receipt({ grants: [other] }));
    refused(await call(body.run, { queue: "support", title: "x" }), "grant_violation", "connector_mismatch");
  });

  it("answers hostile requests with a clear error", async () => {
    const { body } = await postRun(await receipt());
    expect((await post("/runs", "{not json")).status).toBe(400);
    expect((await post("/runs", { receipt: "a.b.c" })).status).toBe(400); // no program
    expect((await post("/runs", { receipt: "a.b.c", program: "", extra: 1 })).status).toBe(400);
    expect((await post("/runs", { receipt: "x", program: "" }, { "content-type": "text/plain" })).status).toBe(415);
    expect((await post("/runs", { receipt: "x".repeat(2 * 1024 * 1024), program: "" })).status).toBe(413);
    expect((await call("A".repeat(22), { queue: "support", title: "x" })).status).toBe(404); // no such run
    expect((await call(body.run, { queue: "support", title: "x" }, "tickets.delete_all")).status).toBe(404);
    expect((await call(body.run, { queue: "support", title: "x", assignee: "eve" })).status).toBe(400);
    expect((await call(body.run, { queue: "support", title: 7 })).status).toBe(400);
    // none of those used up the run: both granted calls still pass
    expect((await call(body.run, { queue: "support", title: "one" })).status).toBe(200);
    expect((await call(body.run, { queue: "support", title: "two" })).status).toBe(200);
  });
});
