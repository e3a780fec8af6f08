// Fuzz a live authority on 127.0.0.1 with requests built from its routes: odd methods, paths,
// queries, headers, cookies and bodies, and login links signed right over any payload. Every
// answer is a status below 500 with the error envelope (or a 503 that says so), no approver route
// answers 2xx without the session and its CSRF token, and the authority keeps serving.
import { createHmac } from "node:crypto";
import { request } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorEnvelope } from "../../src/model/errors.js";
import { readApproverSecret } from "../../src/store/index.js";
import { example, startTestAuthority, type ApproverSession, type TestAuthority } from "../authority/harness.js";
import { applyEdits, fuzzParameters, fuzzTimeout, sameSigned, textEdit } from "./fuzz.js";
import { applyJsonEdit, jsonEdit } from "./json-edit.js";

let a: TestAuthority;
let alice: ApproverSession;
let pendingId: string;
const logged: string[] = [];

beforeAll(async () => {
  a = await startTestAuthority("sqlite", { log: (line: string) => void logged.push(line) });
  alice = await a.login("alice");
  pendingId = (await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).body.id;
});
afterAll(async () => a?.close());

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** One request over node:http, which sends any Host and header bytes we ask for (fetch would not). */
function send(s: Sent): Promise<{ status: number; text: string; type: string }> {
  const { port } = new URL(a.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method: s.method, path: s.path, headers: s.headers, timeout: 15_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString("utf8"),
            type: String(res.headers["content-type"] ?? ""),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer to ${s.method} ${s.path} in 15 s`)));
    req.on("error", reject);
    req.end(s.body);
  });
}

// The browser UI's pages (/, /requests/:id, /rules) are the approver's too, and answer errors as HTML pages.
const PAGES = /^\/(requests\/|rules|$)/;
const APPROVER_ONLY = [
  PAGES,
  /^\/v1\/requests\/?(\?|$)/,
  /^\/v1\/requests\/[^/?]+\/decision(\?|$)/,
  /^\/v1\/audit/,
  /^\/v1\/reload/,
  /^\/v1\/session/,
  /^\/v1\/events/,
];
const isApproverOnly = (method: string, path: string) =>
  APPROVER_ONLY.some((r, i) => r.test(path) && (i !== 1 || method === "POST") && (i !== 0 || method === "GET"));

const segment = fc.oneof(
  fc.constantFrom(
    "req-1",
    "..",
    "%2e%2e",
    "%00",
    "%ff",
    "x".repeat(300),
    "%F0%9F%99%82",
    "",
    "a%20b",
    "a?b",
    "a%0d%0aX:%20y",
    "%2F",
  ),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/),
);
const query = fc.oneof(
  fc.constant(""),
  fc.constantFrom(
    "?wait=0",
    "?wait=61",
    "?wait=-1",
    "?wait=1e3",
    "?status=pending",
    "?status=nope",
    "?limit=0",
    "?limit=501",
    "?limit=abc",
    "?cursor=%00",
    "?last_event_id=99999999999999999",
    "?link=",
    "?link=a.b.c",
  ),
);
const pathArb = fc
  .oneof(
    fc.constantFrom(
      "/",
      "/healthz",
      "/.well-known/jwks.json",
      "/login",
      "/v1/requests",
      "/v1/check",
      "/v1/session",
      "/v1/audit",
      "/v1/audit/verify",
      "/v1/reload",
      "/v1/events",
      "//v1/requests",
      "/v1/requests/",
    ),
    fc
      .tuple(
        fc.constantFrom("/v1/requests/", "/requests/", "/v1/receipts/"),
        segment,
        fc.constantFrom("", "/decision", "/withdraw", "/redeem", "/x"),
      )
      .map(([p, s, t]) => p + s + t),
    fc.constant("PENDING"),
    fc.constant("SIGNED_LOGIN"),
  )
  .chain((p) => query.map((q) => p + q));

const headerValue = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});

/** A login link whose MAC is right, over any payload text: what only the holder of the approver secret could make. */
function signedLink(text: string): string {
  const payload = Buffer.from(text, "utf8").toString("base64url");
  return `${payload}.${createHmac("sha256", readApproverSecret(a.dataDir)).update(`countersign login link\n${payload}`).digest("base64url")}`;
}

function requestArb() {
  const bodies = fc.oneof(
    fc.constant(undefined),
    fc
      .constantFrom(
        { program: example("read-notes.ts") },
        { program: example("notify-team.ts"), source_name: "n.ts", timeout_s: 5 },
        { decision: "approved_once" },
        { decision: "rejected", reason: "no" },
        { exp: 1 },
      )
      .chain((b) =>
        fc
          .array(jsonEdit, { maxLength: 2 })
          .map((edits) => Buffer.from(JSON.stringify(edits.reduce(applyJsonEdit, b as unknown)))),
      ),
    fc
      .array(textEdit(["{", "}", '"', ":", ",", "[", "]", "\\u", "\u0000", "null"]), { maxLength: 3 })
      .map((e) => Buffer.from(applyEdits(JSON.stringify({ program: "x" }), e))),
    fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
  );
  return fc.record({
    method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"),
    path: pathArb,
    host: fc.oneof(
      { weight: 5, arbitrary: fc.constant("own") },
      { weight: 1, arbitrary: fc.constantFrom("evil.example", "localhost:1", "127.0.0.1:1", "127.0.0.1") },
    ),
    token: fc.constantFrom("valid", "none", "garbage", "empty", "basic"),
    cookie: fc.constantFrom("session", "none", "mutated", "garbage", "two"),
    csrf: fc.constantFrom("right", "none", "wrong"),
    contentType: fc.oneof(
      fc.constantFrom(
        "application/json",
        "application/json; charset=utf-8",
        "APPLICATION/JSON",
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/jsonp",
      ),
      headerValue,
    ),
    origin: fc.constantFrom(undefined, "own", "http://evil.example", "null"),
    secFetchSite: fc.constantFrom(undefined, "same-origin", "cross-site", "none", "same-site"),
    loginPayload: fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? "null"),
    ),
    cookieEdit: fc.array(textEdit(["=", ".", ";", "A", "_", "-"]), { minLength: 1, maxLength: 2 }),
    body: bodies,
  });
}

describe("fuzz: HTTP against a live authority", () => {
  it(
    "answers every request with a status below 500 or a store 503, the error envelope, and no approver answer without the session",
    async () => {
      const own = new URL(a.url).host;
      await fc.assert(
        fc.asyncProperty(requestArb(), async (r) => {
          const path = r.path
            .replace("PENDING", `/v1/requests/${pendingId}`)
            .replace("SIGNED_LOGIN", `/login?link=${signedLink(r.loginPayload)}`);
          const headers: Record<string, string> = { host: r.host === "own" ? own : r.host };
          if (r.token === "valid") headers.authorization = `Bearer ${a.token}`;
          if (r.token === "garbage") headers.authorization = "Bearer x.y.z";
          if (r.token === "empty") headers.authorization = "";
          if (r.token === "basic") headers.authorization = "Basic YWxpY2U6eA==";
          const session = alice.cookie.split("; ").find((c) => c.startsWith("countersign_session="))!;
          const mutated = applyEdits(session.slice("countersign_session=".length), r.cookieEdit).replace(
            /[^A-Za-z0-9._=;-]/g,
            "",
          ); // cookie octets without the decoding a cookie parser may do
          const cookies: Record<string, string> = {
            session: alice.cookie,
            mutated: `countersign_session=${mutated}`,
            garbage: "countersign_session=e30.AAAA",
            two: `countersign_session=x; ${alice.cookie}`,
          };
          if (r.cookie in cookies) headers.cookie = cookies[r.cookie]!;
          if (r.csrf === "right") headers["x-csrf-token"] = alice.csrf;
          if (r.csrf === "wrong") headers["x-csrf-token"] = alice.csrf.slice(1) + "A";
          if (r.origin !== undefined) headers.origin = r.origin === "own" ? a.url : r.origin;
          if (r.secFetchSite !== undefined) headers["sec-fetch-site"] = r.secFetchSite;
          if (r.body !== undefined) {
            headers["content-type"] = r.contentType;
            headers["content-length"] = String(r.body.length); // node:http sends a GET's body unframed otherwise
          }
          // an open event stream never ends: only ever sent without a usable session
          if (path.startsWith("/v1/events") && r.cookie === "session") headers.cookie = cookies.garbage!;
          if (r.method === "GET" && /\/decision\?wait=0$/.test(path) === false && /[?&]wait=/.test(path)) fc.pre(false);

          const answer = await send({
            method: r.method,
            path,
            headers,
            ...(r.body === undefined ? {} : { body: r.body }),
          });
          expect(answer.status, `${r.method} ${path}: ${answer.text.slice(0, 300)}`).toBeLessThan(500);
          if (answer.status >= 400 && r.method !== "HEAD") {
            expect(answer.text, `${r.method} ${path}: ${answer.status}`).not.toBe("");
            if (PAGES.test(path.split("?")[0]!) && answer.type.startsWith("text/html")) return; // a page answers its errors as HTML, whatever the query
            const envelope = ErrorEnvelope.safeParse(JSON.parse(answer.text));
            expect(envelope.success, answer.text).toBe(true);
            expect(envelope.data!.error.class).not.toBe("internal_error");
          }
          if (answer.status < 300 && isApproverOnly(r.method, path.split("?")[0]!)) {
            // the approver's answer needs the session cookie, the right host, and on a POST the CSRF token
            const hasSession =
              r.cookie === "session" ||
              r.cookie === "two" ||
              (r.cookie === "mutated" &&
                sameSigned(session.slice("countersign_session=".length), mutated.split(";")[0]!));
            expect(hasSession, `${r.method} ${path} answered ${answer.status} to ${JSON.stringify(headers)}`).toBe(
              true,
            );
            expect(headers.authorization).toBeUndefined();
            if (r.method === "POST") expect(headers["x-csrf-token"]).toBe(alice.csrf);
          }
          if (r.host !== "own" && r.host !== own) expect(answer.status).toBe(421);
        }),
        fuzzParameters(1500),
      );
      expect((await a.call("GET", "/healthz")).body).toMatchObject({ ok: true });
      expect(logged.filter((l) => / 5\d\d /.test(l))).toEqual([]);
      expect((await a.call("GET", "/v1/audit/verify", { session: alice })).body).toMatchObject({ ok: true });
    },
    fuzzTimeout(180_000),
  );
});
