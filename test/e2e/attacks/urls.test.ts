// URLs: the policy allows one path prefix on one host and denies another host; the program
// spells the forbidden targets so that a check on the raw string and the URL parser that sends
// the request disagree. What counts is where the requests landed.
import { beforeAll, describe, expect, it } from "vitest";
import { inBatches, program, shown, SLOW, type Arrived, useWorld } from "./world.js";

const w = useWorld({
  sinks: 3,
  policies: (world) => {
    const [a, b] = world.sinks;
    return {
      "attacks.toml": `default = "deny"

[[rules]]
id = "http.s2-denied"
decision = "deny"
op = "http.*"
when = { args = { url = { host_in = ["${b!.host}"] } } }
reason = "never that host"

[[rules]]
id = "http.s1-public"
decision = "allow"
op = "http.*"
when = { args = { url = { prefix = "${a!.origin}/public/" } } }

[[rules]]
id = "http.elsewhere"
decision = "allow"
op = "http.*"
when = { args = { url = { all = [{ prefix = "http://" }, { not = { host_in = ["${a!.host}", "${b!.host}"] } }] } } }
`,
    };
  },
});
// s1: /public/ allowed by prefix; s2: denied host; s3: anything allowed (the control).
let s1: string;
let s2: string;
let s3: string;

beforeAll(() => {
  [s1, s2, s3] = w.sinks.map((s) => s.origin) as [string, string, string];
});

/** Each URL tried in turn; a refused call does not stop the next one. */
function tryEach(op: "get" | "post", urls: string[]): string {
  const calls = urls
    .map(
      (u) =>
        `    try { await ${op}({ url: ${JSON.stringify(u)}${op === "post" ? `, body: "PAYLOAD-7d1e"` : ""} }); } catch {}`,
    )
    .join("\n");
  return program(calls, { imports: `import { ${op} } from "trusted/http";` });
}

/** The path a lenient server would act on: percent-decoded, backslashes as slashes, dot segments resolved. */
function landsOn(target: string): string {
  let path = target.split("?")[0]!.split("#")[0]!;
  try {
    path = decodeURIComponent(path);
  } catch {}
  const out: string[] = [];
  for (const segment of path.replaceAll("\\", "/").split("/")) {
    if (segment === "..") out.pop();
    else if (segment !== ".") out.push(segment);
  }
  return out.join("/");
}

const outsidePublic = (arrived: Arrived[]) => arrived.filter((a) => !landsOn(a.url).startsWith("/public/"));

/**
 * One run per URL: a program with one call the policy rejects is rejected whole, so URLs tried
 * together would hide each other. Returns what each run printed, for the failure message.
 */
async function attempt(op: "get" | "post", urls: string[]): Promise<string> {
  const said = await inBatches(urls, async (u) => {
    const r = await w.run(tryEach(op, [u]));
    return `${JSON.stringify(u)} -> exit ${r.code}: ${r.stdout.split("\n").slice(0, 3).join(" | ")} ${r.stderr.split("\n")[0]}`;
  });
  return said.join("\n");
}

describe("a URL allowed by its path prefix", () => {
  it(
    "dot segments, encoded dots, backslashes and blanks never reach a path outside /public/",
    async () => {
      const urls = [
        `${s1}/public/../admin`,
        `${s1}/public/%2e%2e/admin`,
        `${s1}/public/%2E%2e/admin`,
        `${s1}/public/.%2E/admin`,
        `${s1}/public/%2e./admin`,
        `${s1}/public\\..\\admin`,
        `${s1}/public/..\\admin`,
        `${s1}/public/.\t./admin`,
        `${s1}/public/.\n./admin`,
        `${s1}/public/..\r/admin`,
        `${s1}/public/./../admin`,
        `${s1}/public//../../admin`,
        `${s1}/public/x/../../admin`,
        `${s1}/public/%252e%252e/admin`,
      ];
      const said = await attempt("post", urls);
      const s = w.sinks[0]!;
      expect(shown(outsidePublic(s.received)), `runs said:\n${said}`).toBe("(nothing)");
      // The control: the allowed prefix itself still works, so the case is not vacuous.
      const control = await w.run(tryEach("post", [`${s1}/public/ok`]));
      expect(
        s.received.map((a) => a.url),
        control.stderr,
      ).toContain("/public/ok");
    },
    SLOW,
  );

  // The stricter reading: a separator sent percent-encoded is one a lenient server decodes; the
  // checked form must not leave it to the server to decide where the request goes.
  it(
    "encoded slashes and backslashes: no path a decoding server resolves outside /public/",
    async () => {
      const before = w.sinks[0]!.received.length;
      const said = await attempt("post", [
        `${s1}/public/%2e%2e%2fadmin`,
        `${s1}/public/..%2fadmin`,
        `${s1}/public/..%5cadmin`,
        `${s1}/public/..%2Fadmin`,
      ]);
      expect(shown(outsidePublic(w.sinks[0]!.received.slice(before))), `runs said:\n${said}`).toBe("(nothing)");
    },
    SLOW,
  );

  it(
    "GET: the same tricks, and case in the path, reach nothing outside /public/",
    async () => {
      const urls = [
        `${s1}/public/../admin?x=1`,
        `${s1}/public/%2e%2e/admin`,
        `${s1}/PUBLIC/../admin`,
        `${s1}/public/..;/admin`,
        `${s1}/public/.%09./admin`,
      ];
      const before = w.sinks[0]!.received.length;
      const said = await attempt("get", urls);
      expect(shown(outsidePublic(w.sinks[0]!.received.slice(before))), `runs said:\n${said}`).toBe("(nothing)");
    },
    SLOW,
  );
});

describe("a host denied by the policy, other hosts allowed", () => {
  it(
    "other spellings of the denied host (IPv4 forms, trailing dot, userinfo, backslash, case) reach nothing there",
    async () => {
      const port = (origin: string) => origin.split(":")[2]!;
      const p2 = port(s2);
      const p3 = port(s3);
      const urls = [
        `http://0x7f.1:${p2}/a`,
        `http://0x7f000001:${p2}/b`,
        `http://2130706433:${p2}/c`,
        `http://127.1:${p2}/d`,
        `http://0177.0.0.1:${p2}/e`,
        `http://127.0.0.1.:${p2}/f`,
        `http://127.000.000.001:${p2}/g`,
        `HTTP://127.0.0.1:${p2}/h`,
        `http://127.0.0.1:${p3}@127.0.0.1:${p2}/i`,
        `http://127.0.0.1:${p2}\\@127.0.0.1:${p3}/j`,
        `http://127.0.0.1:${p2}\\.127.0.0.1:${p3}/k`,
        `http://127.0.0.1:0${p2}/l`,
        `http://127.0.0.1:${p2}#@127.0.0.1:${p3}/m`,
        `http://127.0.0.1:${p2}?@127.0.0.1:${p3}/n`,
        `http:127.0.0.1:${p2}/o`,
        `http:/127.0.0.1:${p2}/p`,
        `http:\\\\127.0.0.1:${p2}/q`,
        ` http://127.0.0.1:${p2}/r`,
        `\thttp://127.0.0.1:${p2}/s`,
        `http://127.0.0.1\t:${p2}/t`,
        `http://１２７.０.０.１:${p2}/u`,
        `http://127。0。0。1:${p2}/v`,
        `http://[::ffff:127.0.0.1]:${p2}/w`,
        `http://[::ffff:7f00:1]:${p2}/x`,
      ];
      const said = await attempt("post", urls);
      expect(shown(w.sinks[1]!.received), `runs said:\n${said}`).toBe("(nothing)");
      // The control: the third host, which the policy allows, is reachable.
      const control = await w.run(tryEach("post", [`${s3}/fine`]));
      expect(
        w.sinks[2]!.received.map((a) => a.url),
        control.stderr,
      ).toContain("/fine");
    },
    SLOW,
  );
});
