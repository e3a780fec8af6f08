// `countersign serve` listens before it has loaded its routes and warmed its analysis threads:
// /healthz answers at once and says so, and a program submitted at that moment is not refused but
// waits for a thread and gets its decision.
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isolatedEnv } from "../support/isolated-env.js";
import { example } from "./harness.js";
import { callServe, startServe, type ServeProcess } from "./serve-process.js";

const running: ServeProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop()));
});

describe("serve at start-up", () => {
  it("answers /healthz as starting before its threads are warm, decides a program submitted at once, then says ready", async () => {
    const env = isolatedEnv();
    const serve = await startServe(env);
    running.push(serve);
    const token = readFileSync(join(env.COUNTERSIGN_HOME!, "submitter.token"), "utf8").trim();
    // both sent the moment it printed its URL
    const [health, approved, pending] = await Promise.all([
      callServe(serve.url, "GET", "/healthz"),
      callServe(serve.url, "POST", "/v1/requests", {
        token,
        body: { program: example("read-notes.ts"), source_name: "read-notes.ts" },
      }),
      callServe(serve.url, "POST", "/v1/requests", {
        token,
        body: { program: example("notify-team.ts"), source_name: "notify-team.ts" },
      }),
    ]);
    expect(health).toEqual({ status: 200, body: { ok: true, status: "starting" } });
    expect(approved).toMatchObject({
      status: 200,
      body: { status: "approved", decision: { kind: "auto_approved" }, receipt: expect.any(String) },
    });
    expect(pending).toMatchObject({ status: 202, body: { status: "pending" } });
    await expect
      .poll(async () => (await callServe(serve.url, "GET", "/healthz")).body, { timeout: 60_000, interval: 200 })
      .toEqual({ ok: true, status: "ready" });
  }, 120_000);

  it("holds a request with a foreign Host until its routes are in place, then refuses it as they do", async () => {
    const env = isolatedEnv();
    const serve = await startServe(env);
    running.push(serve);
    const { port } = new URL(serve.url);
    // node:http, not fetch: fetch sends its own Host
    const status = await new Promise<number | undefined>((resolve, reject) =>
      request({ host: "127.0.0.1", port, path: "/healthz", headers: { host: `evil.example:${port}` } }, (answer) => {
        answer.resume();
        resolve(answer.statusCode);
      })
        .on("error", reject)
        .end(),
    );
    expect(status).toBe(421);
  }, 120_000);
});
