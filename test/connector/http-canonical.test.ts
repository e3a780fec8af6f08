// Check what is sent, send what was checked: a grant on a URL is checked on the URL's canonical
// form, the connector sends exactly that form, and no redirect takes a request past the grant.
// Every attack runs against a real loopback server that records the paths it receives.
import fc from "fast-check";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { admitCall, admitPreview } from "../../src/connector/admission.js";
import { callWithReceipt } from "../../src/connector/call-with-receipt.js";
import { connectorContext } from "../../src/config/index.js";
import type { ConnectorContext } from "../../src/connector/context.js";
import { createPluginPool, type PluginPool } from "../../src/connector/plugin-pool.js";
import type { ValueConstraint } from "../../src/model/constraint.js";
import { decide } from "../../src/policy/decide.js";
import { VerifiedReceipt } from "../../src/receipt/verified-receipt.js";
import {
  effect,
  facts as policyFacts,
  policyOf,
  shippedManifests as policyShipped,
  str,
  val,
} from "../policy/helpers.js";
import { dataDirWith, shippedManifests } from "./fixtures.js";

const set = shippedManifests();

let server: Server;
let base: string; // http://127.0.0.1:<port>
const seen: { method: string; url: string; body: string }[] = [];
let pool: PluginPool;
let ctx: ConnectorContext;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    seen.push({ method: req.method ?? "", url: req.url ?? "", body });
    const to = /^\/public\/redirect-(\d{3})$/.exec(req.url ?? "");
    if (to !== null) return res.writeHead(Number(to[1]), { location: "/admin/delete" }).end("moved");
    res.writeHead(200, { "content-type": "text/plain" }).end(`got ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  pool = createPluginPool();
  ctx = connectorContext(dataDirWith(`[http]\nhosts = ["${base.slice(7)}"]\n`), { plugins: pool });
});
afterAll(async () => {
  await pool.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A receipt whose grants allow http.get and http.post on URLs satisfying `url`, any number of times. */
function receiptFor(url: ValueConstraint): VerifiedReceipt {
  const sha256 = set.connectors.get("http")!.manifest.sha256;
  const grants = ["http.get", "http.post"].map((op) => ({
    op,
    connector: { name: "http", sha256 },
    args: { url },
    count: { max: null },
  }));
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
    grants,
    across: [],
  });
}

// Each names a path under /public/ as raw text, which a URL parser or a server reads as another.
const tricks = (b: string) => [
  `${b}/public/../admin/delete`,
  `${b}/public/./../admin/delete`,
  `${b}/public/..;/admin/delete`,
  `${b}/public/%2e%2e/admin/delete`,
  `${b}/public/%2E%2E/admin/delete`,
  `${b}/public/.%2e/admin/delete`,
  `${b}/public/..%2fadmin/delete`,
  `${b}/public/..%5cadmin/delete`,
  `${b}/public/%2e%2e%2fadmin%2fdelete`,
  `${b}/public\\..\\admin\\delete`,
  `${b}/public/\\..\\admin/delete`,
  `${b}/public/.\t./admin/delete`,
  `${b}/public/..\n/admin/delete`,
  `${b}/public/..\r/admin/delete`,
  `${b}/public/../admin/delete `,
  `${b}/public/ /../../admin/delete`,
];

describe("URL arguments are checked and sent in canonical form", () => {
  it("refuses every dot-segment, encoding, backslash and whitespace trick as non_canonical; the server receives nothing", async () => {
    const verified = receiptFor({ prefix: `${base}/public/` });
    seen.length = 0;
    for (const url of tricks(base)) {
      for (const [op, args] of [
        ["http.get", { url }],
        ["http.post", { url, body: '{"drop":true}' }],
      ] as const) {
        await expect(callWithReceipt(verified, set, op, args, ctx), JSON.stringify(url)).rejects.toMatchObject({
          class: "grant_violation",
          details: { reason: "non_canonical", op, input: "url", raw: url },
        });
      }
    }
    expect(seen).toEqual([]);
  });

  it("names the raw and the canonical text in the refusal", () => {
    const url = `${base}/public/%2e%2e/admin/delete`;
    expect(() => admitCall(receiptFor({ prefix: `${base}/public/` }), set, "http.get", { url })).toThrow(
      expect.objectContaining({
        class: "grant_violation",
        details: expect.objectContaining({ reason: "non_canonical", raw: url, canonical: `${base}/admin/delete` }),
      }),
    );
  });

  it("checks the grant on the canonical form and sends exactly that form", async () => {
    seen.length = 0;
    const exact = receiptFor({ eq: `${base}/public/x` });
    const raw = `HTTP://127.0.0.1:${base.slice(base.lastIndexOf(":") + 1)}/public/x`;
    const admission = admitCall(exact, set, "http.get", { url: raw });
    expect(admission.args.url).toBe(`${base}/public/x`);
    expect(await callWithReceipt(exact, set, "http.get", { url: raw }, ctx)).toMatchObject({
      status: 200,
      body: "got /public/x",
    });
    // A grant written in the raw spelling does not match what would be sent: refused.
    expect(() => admitCall(receiptFor({ eq: raw }), set, "http.get", { url: raw })).toThrow(
      expect.objectContaining({
        class: "grant_violation",
        details: expect.objectContaining({ reason: "argument_refused" }),
      }),
    );
    expect(seen.map((r) => r.url)).toEqual(["/public/x"]);
  });

  it("puts preview and resolved-read URLs in canonical form too", () => {
    expect(admitPreview(set, "http.get", { url: "HTTP://API.X.com:80" }).args.url).toBe("http://api.x.com/");
    expect(() => admitPreview(set, "http.get", { url: `${base}/public/../admin` })).toThrow(
      expect.objectContaining({
        class: "grant_violation",
        details: expect.objectContaining({ reason: "non_canonical" }),
      }),
    );
  });
});

describe("redirects", () => {
  it("are never followed: a body approved for /public/ never lands on /admin/, and the program gets the 3xx", async () => {
    const verified = receiptFor({ prefix: `${base}/public/` });
    for (const status of [301, 302, 303, 307, 308]) {
      seen.length = 0;
      const url = `${base}/public/redirect-${status}`;
      expect(await callWithReceipt(verified, set, "http.post", { url, body: "secret" }, ctx)).toMatchObject({
        status,
        headers: { location: "/admin/delete" },
        body: "moved",
      });
      expect(await callWithReceipt(verified, set, "http.get", { url }, ctx)).toMatchObject({
        status,
        headers: { location: "/admin/delete" },
      });
      expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
        `POST /public/redirect-${status}`,
        `GET /public/redirect-${status}`,
      ]);
    }
  });

  it("a next request to the Location is a new call, checked against the grant", async () => {
    const verified = receiptFor({ prefix: `${base}/public/` });
    seen.length = 0;
    await expect(
      callWithReceipt(verified, set, "http.get", { url: `${base}/admin/delete` }, ctx),
    ).rejects.toMatchObject({ class: "grant_violation", details: { reason: "argument_refused" } });
    expect(seen).toEqual([]);
  });
});

describe("decisions are made on the URL that will be sent", () => {
  // The policy allows the API host and refuses its admin paths; the program's URL is partly known.
  const policy = policyOf(`
[[rules]]
id = "api"
decision = "allow"
op = "http.*"
when = { args = { url = { host_in = ["api.example.com"] } } }

[[rules]]
id = "admin"
decision = "deny"
op = "http.*"
when = { args = { url = { prefix = "https://api.example.com/admin" } } }
reason = "no admin calls"
`);
  const policySet = policyShipped();

  /** The receipt a decision on a program calling http.post once with `url` would carry. */
  function decided(url: ReturnType<typeof str>) {
    const d = decide(policyFacts([effect("http.post", { url, body: val("x") })]), policy, policySet);
    const claims = {
      iss: "t",
      aud: "countersign-runner",
      sub: "r",
      iat: 0,
      nbf: 0,
      exp: 4_102_444_800,
      jti: "A".repeat(22),
      program: { sha256: "0".repeat(64), entry: "p.ts" },
      decision: "auto_approved" as const,
      policy: { sha256: "0".repeat(64) },
      grants: d.grants,
      across: d.across,
    };
    return { kind: d.kind, verified: () => new VerifiedReceipt("k", claims) };
  }

  it("a known prefix inside the allowed path stays inside it at run time: every trick is refused", () => {
    const { kind, verified } = decided(str("https://api.example.com/public/"));
    expect(kind).toBe("auto_approved");
    for (const url of tricks("https://api.example.com")) {
      expect(() => admitCall(verified(), set, "http.post", { url, body: "x" }), JSON.stringify(url)).toThrow(
        expect.objectContaining({ class: "grant_violation" }),
      );
    }
    expect(
      admitCall(verified(), set, "http.post", { url: "https://api.example.com/public/a?b=1", body: "x" }).args.url,
    ).toBe("https://api.example.com/public/a?b=1");
  });

  it("a prefix in another spelling of the same origin is judged and granted as it will be sent", () => {
    // Judged as https://api.example.com/admin/ + ...: denied, as the lower-case spelling is.
    expect(decided(str("HTTPS://API.EXAMPLE.COM:443/admin/")).kind).toBe("auto_rejected");
    const { kind, verified } = decided(str("HTTPS://API.Example.com:443/public/"));
    expect(kind).toBe("auto_approved");
    expect(
      admitCall(verified(), set, "http.post", { url: "HTTPS://API.Example.com:443/public/a", body: "x" }).args.url,
    ).toBe("https://api.example.com/public/a");
    expect(() =>
      admitCall(verified(), set, "http.post", { url: "https://api.example.com/admin/a", body: "x" }),
    ).toThrow(expect.objectContaining({ class: "grant_violation" }));
  });

  it("a constant URL is granted in the form it is sent in", () => {
    const { kind, verified } = decided(val("https://API.example.com"));
    expect(kind).toBe("auto_approved");
    expect(admitCall(verified(), set, "http.post", { url: "https://API.example.com", body: "x" }).args.url).toBe(
      "https://api.example.com/",
    );
    // A constant the wrapper refuses is judged as written; no run can send it.
    const refused = decided(val("https://api.example.com/public/../admin/users"));
    expect(() =>
      admitCall(refused.verified(), set, "http.post", {
        url: "https://api.example.com/public/../admin/users",
        body: "x",
      }),
    ).toThrow(
      expect.objectContaining({
        class: "grant_violation",
        details: expect.objectContaining({ reason: "non_canonical" }),
      }),
    );
  });
});

describe("no admitted URL reaches a path outside its grant, as a server may read it", () => {
  // Pieces an attacker appends to an allowed prefix: separators, dots and their encodings,
  // path parameters, controls, other characters a parser or a server rewrites.
  const PIECES = [
    "/",
    "\\",
    ".",
    "..",
    "%2e",
    "%2E",
    "%2f",
    "%2F",
    "%5c",
    "%252e",
    ";",
    ";x",
    "\t",
    "\n",
    " ",
    "?",
    "#",
    "a",
    "admin",
    "é",
    "%",
    "%00",
    "//",
  ];
  const urlArb = fc
    .array(fc.constantFrom(...PIECES), { maxLength: 8 })
    .map((parts) => `https://api.example.com/public/${parts.join("")}`);

  /** The path a lenient server resolves: percent-decoded once, `\` as `/`, `;` parameters dropped, dot segments applied. */
  function serverPath(url: string): string {
    let path = new URL(url).pathname;
    try {
      path = decodeURIComponent(path);
    } catch {
      // a lone `%`: left as it is
    }
    const out: string[] = [];
    for (const segment of path
      .replaceAll("\\", "/")
      .split("/")
      .slice(1)
      .map((s) => s.replace(/;.*$/s, ""))) {
      if (segment === "..") out.pop();
      else if (segment !== ".") out.push(segment);
    }
    return `/${out.join("/")}`;
  }

  it("every admitted URL is its own canonical form, inside the grant, and resolves under /public/", () => {
    const verified = receiptFor({ prefix: "https://api.example.com/public/" });
    let admitted = 0;
    fc.assert(
      fc.property(urlArb, (url) => {
        let sent: string;
        try {
          sent = admitCall(verified, set, "http.post", { url, body: "x" }).args.url as string;
        } catch (err) {
          expect(err).toMatchObject({ class: "grant_violation", details: { reason: "non_canonical" } });
          return;
        }
        admitted++;
        expect(new URL(sent).href).toBe(sent);
        expect(sent.startsWith("https://api.example.com/public/")).toBe(true);
        expect(
          serverPath(sent).startsWith("/public/") || serverPath(sent) === "/public",
          JSON.stringify({ url, sent, server: serverPath(sent) }),
        ).toBe(true);
      }),
      { numRuns: 3000 },
    );
    expect(admitted).toBeGreaterThan(100);
  });
});
