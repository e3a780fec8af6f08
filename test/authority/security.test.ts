// Who may do what, and what the authority refuses before any route runs: the submitter token on
// approver routes, login links, CSRF, Host and Origin, body size and shape, security headers.
import { request } from "node:http";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { makeLoginLink } from "../../src/app/index.js";
import { DIALECTS } from "../store/fixtures.js";
import { authorityForSuite, example, type ApproverSession, type TestAuthority } from "./harness.js";

/** Every approver route, with a body that would be valid. */
const APPROVER_ROUTES: [string, string, unknown?][] = [
  ["GET", "/v1/session"],
  ["GET", "/v1/requests"],
  ["POST", "/v1/requests/REQ/decision", { decision: "approved_once" }],
  ["GET", "/v1/events"],
  ["GET", "/v1/audit"],
  ["GET", "/v1/audit/verify"],
  ["POST", "/v1/reload", {}],
];

/** A request with headers fetch will not send (Host), over node:http. */
function raw(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(url + path, { method, headers }, (res) => {
      answered = true;
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", (err) => answered || reject(err)); // a server may answer (413) and close before the whole body is sent
    req.end(body);
  });
}

describe.each(DIALECTS)("who may do what, over %s", (dialect) => {
  let a: TestAuthority;
  let alice: ApproverSession;
  let pendingId: string;
  authorityForSuite(dialect, (started, session) => ((a = started), (alice = session)));
  beforeAll(async () => {
    pendingId = (await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).body.id;
  });

  const count = async () => (await a.call("GET", "/v1/requests?limit=500", { session: alice })).body.requests.length;

  it("the submitter token is refused (403) on every approver route, even alongside a valid session", async () => {
    for (const [method, path, body] of APPROVER_ROUTES) {
      const route = path.replace("REQ", pendingId);
      const answer = await a.call(method, route, body === undefined ? {} : { body });
      expect([route, answer.status, answer.body.error?.class]).toEqual([route, 403, "capability_denied"]);
      const both = await a.call(method, route, {
        session: alice,
        token: a.token,
        ...(body === undefined ? {} : { body }),
      });
      expect([route, both.status]).toEqual([route, 403]);
    }
    expect((await a.call("GET", `/v1/requests/${pendingId}`, { session: alice })).body.status).toBe("pending");
  });

  it("approver routes without a session are 401; a forged session cookie is no session", async () => {
    for (const [method, path, body] of APPROVER_ROUTES) {
      const answer = await a.call(method, path.replace("REQ", pendingId), {
        token: null,
        ...(body === undefined ? {} : { body }),
      });
      expect([path, answer.status]).toEqual([path, 401]);
    }
    const forged = {
      cookie: alice.cookie.replace(/countersign_session=([^.;]+)\.[^;]+/, "countersign_session=$1.AAAA"),
      csrf: alice.csrf,
    };
    expect((await a.call("GET", "/v1/requests", { session: forged })).status).toBe(401);
  });

  it("submitter routes need a valid token: none or a wrong one is 401, a revoked one stops at once", async () => {
    const program = { program: example("read-notes.ts") };
    expect((await a.call("POST", "/v1/requests", { token: null, body: program })).status).toBe(401);
    expect((await a.call("POST", "/v1/requests", { token: "cs_not-a-token", body: program })).status).toBe(401);
    expect((await a.call("POST", "/v1/requests", { session: alice, body: program })).status).toBe(401); // the approver does not submit
    const { token } = await a.authority.state.store.addToken("short-lived");
    expect((await a.call("POST", "/v1/requests", { token, body: program })).status).toBe(200);
    await a.authority.state.store.revokeToken("short-lived");
    expect((await a.call("POST", "/v1/requests", { token, body: program })).status).toBe(401);
  });

  it("a token revoked during a long poll gets no receipt when the person approves", async () => {
    const { token } = await a.authority.state.store.addToken("revoked-while-waiting");
    const { id } = (await a.call("POST", "/v1/requests", { token, body: { program: example("notify-team.ts") } })).body;
    const waiting = a.call("GET", `/v1/requests/${id}/decision?wait=30`, { token });
    await new Promise((r) => setTimeout(r, 300)); // the poll has checked the token and waits
    expect(await a.authority.state.store.revokeToken("revoked-while-waiting")).toBe(true);
    expect(
      (await a.call("POST", `/v1/requests/${id}/decision`, { session: alice, body: { decision: "approved_once" } }))
        .status,
    ).toBe(200);
    const answer = await waiting;
    expect([answer.status, answer.body.error?.class]).toEqual([401, "capability_denied"]);
    expect(answer.body).not.toHaveProperty("receipt");
    expect(JSON.stringify(answer.body)).not.toContain("approved_once");
  });

  it("a login link logs in once: forged, expired or reused links are refused", async () => {
    const now = () => new Date();
    const link = makeLoginLink({ dataDir: a.dataDir, now }, "bob");
    const login = (l: string) => a.call("GET", `/login?link=${encodeURIComponent(l)}`, { token: null });
    const first = await login(link);
    expect(first.status).toBe(303);
    expect(first.headers.getSetCookie().join("\n")).toMatch(/countersign_session=[^;]+;.*HttpOnly.*SameSite=Strict/);
    const reused = await login(link);
    expect(reused.status).toBe(403);
    expect(reused.body.error.message).toContain("used already");
    const [payload, mac] = makeLoginLink({ dataDir: a.dataDir, now }, "bob").split(".");
    const forgedName = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), a: "mallory" }),
    ).toString("base64url");
    expect((await login(`${forgedName}.${mac}`)).status).toBe(403);
    expect((await login(`${payload}.${"A".repeat(43)}`)).status).toBe(403);
    const old = makeLoginLink({ dataDir: a.dataDir, now: () => new Date(Date.now() - 61_000) }, "bob");
    expect((await login(old)).body.error.message).toContain("expired");
    const ahead = makeLoginLink({ dataDir: a.dataDir, now: () => new Date(Date.now() + 3_600_000) }, "bob");
    expect((await login(ahead)).status).toBe(403);
    expect((await login("garbage")).status).toBe(403);
    expect((await a.call("GET", "/login", { token: null })).status).toBe(403);
  });

  it("every approver POST needs the session's CSRF token", async () => {
    const decide = (session: ApproverSession, csrf: boolean) =>
      a.call("POST", `/v1/requests/${pendingId}/decision`, {
        session,
        csrf,
        body: { decision: "rejected", reason: "no" },
      });
    expect((await decide(alice, false)).status).toBe(403);
    expect((await decide({ ...alice, csrf: "A".repeat(43) }, true)).status).toBe(403);
    const bob = await a.login("bob");
    expect((await decide({ cookie: alice.cookie, csrf: bob.csrf }, true)).status).toBe(403); // another session's token
    expect((await a.call("GET", `/v1/requests/${pendingId}`, { session: alice })).body.status).toBe("pending");
  });

  it("a foreign Host is refused (421) before any route; a foreign Origin or a cross-site fetch on a POST is 403", async () => {
    const port = new URL(a.url).port;
    expect((await raw(a.url, "GET", "/healthz", { host: `evil.example:${port}` })).status).toBe(421);
    expect((await raw(a.url, "GET", "/.well-known/jwks.json", { host: "127.0.0.1:1" })).status).toBe(421);
    expect((await raw(a.url, "GET", "/healthz", { host: `localhost:${port}` })).status).toBe(200);
    const body = JSON.stringify({ program: example("read-notes.ts") });
    const headers = {
      host: `127.0.0.1:${port}`,
      authorization: `Bearer ${a.token}`,
      "content-type": "application/json",
    };
    const before = await count();
    expect((await raw(a.url, "POST", "/v1/requests", { ...headers, origin: "http://evil.example" }, body)).status).toBe(
      403,
    );
    expect((await raw(a.url, "POST", "/v1/requests", { ...headers, origin: "null" }, body)).status).toBe(403);
    expect(
      (await raw(a.url, "POST", "/v1/requests", { ...headers, "sec-fetch-site": "cross-site" }, body)).status,
    ).toBe(403);
    // Same host and port, another scheme: another origin (this authority speaks http).
    for (const origin of [
      `https://127.0.0.1:${port}`,
      `ws://127.0.0.1:${port}`,
      `http://127.0.0.1:${port}/`,
      `HTTP://127.0.0.1:${port}`,
    ]) {
      expect([origin, (await raw(a.url, "POST", "/v1/requests", { ...headers, origin }, body)).status]).toEqual([
        origin,
        403,
      ]);
    }
    expect(await count()).toBe(before);
    expect(
      (await raw(a.url, "POST", "/v1/requests", { ...headers, origin: `http://127.0.0.1:${port}` }, body)).status,
    ).toBe(200);
  });

  it("bodies: oversized 413, malformed 400, unknown fields 400, not JSON 415 — each with a clear message, nothing stored", async () => {
    const before = await count();
    const port = new URL(a.url).port;
    const hugeBody = JSON.stringify({ program: "x".repeat(1024 * 1024 + 1) });
    const huge = await raw(
      a.url,
      "POST",
      "/v1/requests",
      { host: `127.0.0.1:${port}`, authorization: `Bearer ${a.token}`, "content-type": "application/json" },
      hugeBody,
    );
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.body).error).toMatchObject({
      class: "resource_limit_exceeded",
      message: expect.stringContaining("larger than 1048576 bytes"),
    });
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${a.url}/v1/requests`,
        {
          method: "POST",
          headers: {
            authorization: `Bearer ${a.token}`,
            "content-type": "application/json",
            "transfer-encoding": "chunked",
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", (err) => (req.writableEnded ? undefined : reject(err)));
      req.write(`{"program": "`);
      for (let i = 0; i < 20; i++) req.write("y".repeat(64 * 1024)); // no Content-Length: counted as it arrives
      req.end(`"}`);
    });
    expect(chunked).toBe(413);
    const malformed = await a.call("POST", "/v1/requests", {
      rawBody: '{"program": ',
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toContain("not valid JSON");
    const unknown = await a.call("POST", "/v1/requests", {
      body: { program: example("read-notes.ts"), facts: { ok: true } },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/facts/);
    const missing = await a.call("POST", "/v1/requests", { body: { source_name: "x.ts" } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain("program");
    const badTimeout = await a.call("POST", "/v1/requests", {
      body: { program: example("read-notes.ts"), timeout_s: 86_401 },
    });
    expect(badTimeout.status).toBe(400);
    const form = await a.call("POST", "/v1/requests", {
      rawBody: "program=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect(await count()).toBe(before);
  });

  it("a body nested deeper than any valid one is refused (400) before it is parsed", async () => {
    const parse = vi.spyOn(JSON, "parse");
    try {
      const before = await count();
      const deep = `{"program":${"[".repeat(500_000)}${"]".repeat(500_000)}}`; // nearly 1 MiB of nested arrays
      const unbalanced = "[".repeat(1024 * 1024 - 1);
      for (const [path, body] of [
        ["/v1/requests", deep],
        ["/v1/check", unbalanced],
        [`/v1/receipts/x/redeem`, `{"exp":${"[".repeat(20)}1${"]".repeat(20)}}`],
      ] as const) {
        const answer = await a.call("POST", path, { rawBody: body, headers: { "content-type": "application/json" } });
        expect([path, answer.status, answer.body.error?.class]).toEqual([path, 400, "usage_error"]);
        expect(answer.body.error.message).toMatch(/nested more than \d+ levels deep/);
        expect(parse.mock.calls.some(([text]) => text === body)).toBe(false);
      }
      const approver = await a.call("POST", `/v1/requests/${pendingId}/decision`, {
        session: alice,
        rawBody: `{"decision":${"[".repeat(100)}`,
        headers: { "content-type": "application/json" },
      });
      expect(approver.body.error.message).toMatch(/nested more than \d+ levels deep/);
      expect(await count()).toBe(before);
    } finally {
      parse.mockRestore();
    }
    // The deepest valid body passes: brackets inside its strings are not nesting.
    const manifests = [{ name: "m.toml", text: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ {{{{{{{{{{{{{{{{{{{{ "\\' }];
    const checked = await a.call("POST", "/v1/check", {
      body: { program: "const x = [[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]];", manifests },
    });
    expect(checked.body.error?.message ?? "").not.toMatch(/nested/);
  });

  it("answers carry strict security headers, errors included: a CSP without inline script, no sniffing, no framing", async () => {
    const answers = [
      await a.call("GET", "/", { token: null }),
      await a.call("GET", "/v1/requests"),
      await a.call("GET", "/healthz"),
      await a.call("GET", "/no/such/route"),
      await a.call("POST", "/v1/requests", { body: { program: example("read-notes.ts") } }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([401, 403, 200, 404, 200]);
    for (const answer of answers) {
      const csp = answer.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
      expect(answer.headers.get("x-frame-options")).toBe("SAMEORIGIN");
      expect(answer.headers.get("referrer-policy")).toBe("same-origin");
    }
  });

  it("the approver identity is recorded with each decision and its audit entry", async () => {
    const carol = await a.login("carol");
    const id = (await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).body.id;
    await a.call("POST", `/v1/requests/${id}/decision`, { session: carol, body: { decision: "approved_once" } });
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.decision).toMatchObject({
      approver: "carol",
    });
    const audit = String((await a.call("GET", "/v1/audit", { session: alice })).body)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(audit.find((e) => e.type === "decided" && e.request_id === id)).toMatchObject({
      actor: "carol",
      details: { kind: "approved_once" },
    });
  });
});
