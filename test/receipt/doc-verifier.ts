// A receipt verifier written from docs/receipts.md alone, the way a service in another language
// would write one: jose for the signature, the page's rules for everything else. It imports
// nothing of countersign, so that where it and the library disagree, one of them (or the page) is wrong.
import { createHash } from "node:crypto";
import { compactVerify, importJWK } from "jose";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = Record<string, unknown>;

/** A refusal with the page's reason code and the error class the page gives it. */
export class Refused extends Error {
  constructor(
    readonly reason: string,
    readonly kind: "receipt_invalid" | "grant_violation" = "receipt_invalid",
  ) {
    super(`${kind}: ${reason}`);
  }
}

const TYP = "countersign-receipt+jwt";
const AUD = "countersign-runner";
const TOLERANCE = 5;
const MAX_LIFETIME = 900;
const MAX_TOKEN = 65_536;

// ---- keys ("Where the keys come from")

export type Keys = Map<string, Awaited<ReturnType<typeof importJWK>>>;

export async function usableKeys(jwks: unknown): Promise<Keys> {
  if (!isObj(jwks) || !Array.isArray(jwks.keys) || !jwks.keys.every(isObj)) throw new Error("not a JWK Set");
  const byKid = new Map<string, Obj>();
  const shared = new Set<string>();
  for (const k of jwks.keys as Obj[]) {
    if ("d" in k || "p" in k || "k" in k) throw new Error("private key material");
    const usable =
      k.kty === "OKP" &&
      k.crv === "Ed25519" &&
      typeof k.x === "string" &&
      /^[A-Za-z0-9_-]{43}$/.test(k.x) &&
      typeof k.kid === "string" &&
      k.kid !== "" &&
      (k.alg === undefined || k.alg === "EdDSA") &&
      (k.use === undefined || k.use === "sig") &&
      (k.key_ops === undefined || (Array.isArray(k.key_ops) && k.key_ops.includes("verify")));
    if (!usable) continue;
    const kid = k.kid as string;
    if (byKid.has(kid) || shared.has(kid)) {
      byKid.delete(kid);
      shared.add(kid);
    } else byKid.set(kid, k);
  }
  const keys: Keys = new Map();
  for (const [kid, k] of byKid)
    keys.set(kid, await importJWK({ kty: "OKP", crv: "Ed25519", x: k.x as string }, "EdDSA"));
  return keys;
}

// ---- the token ("The token", "Checking a receipt")

export interface DocOptions {
  keys: Keys;
  issuer: string;
  programBytes: Uint8Array;
  agentManifests?: string;
  nowSeconds: number;
}

export async function verifyByDoc(token: unknown, o: DocOptions): Promise<Obj> {
  if (typeof token !== "string") throw new Refused("malformed");
  if (token.length > MAX_TOKEN) throw new Refused("too_large");
  const parts = token.split(".");
  if (parts.length !== 3) throw new Refused("malformed");
  const [h, p, s] = parts as [string, string, string];
  const headerBytes = canonicalBase64url(h);
  const payloadBytes = canonicalBase64url(p);
  if (s !== "") canonicalBase64url(s);
  const header = jsonObject(headerBytes);
  if (header === undefined) throw new Refused("malformed");
  if (header.alg !== "EdDSA") throw new Refused("bad_alg");
  if (Object.keys(header).some((k) => !["alg", "typ", "kid"].includes(k))) throw new Refused("bad_header");
  if (header.typ !== TYP) throw new Refused("bad_typ");
  if (typeof header.kid !== "string") throw new Refused("unknown_kid");
  const key = o.keys.get(header.kid);
  if (key === undefined) throw new Refused("unknown_kid");
  try {
    await compactVerify(token, key, { algorithms: ["EdDSA"] });
  } catch {
    throw new Refused("bad_signature");
  }
  const c = jsonObject(payloadBytes);
  if (c === undefined || !claimsValid(c)) throw new Refused("bad_claims");
  if (c.iss !== o.issuer) throw new Refused("bad_issuer");
  if (c.aud !== AUD) throw new Refused("bad_audience");
  const [iat, nbf, exp] = [c.iat as number, c.nbf as number, c.exp as number];
  if (!(nbf <= o.nowSeconds + TOLERANCE)) throw new Refused("not_yet_valid");
  if (!(exp > o.nowSeconds - TOLERANCE)) throw new Refused("expired");
  if (!(exp - iat <= MAX_LIFETIME)) throw new Refused("lifetime_too_long");
  if ((c.program as Obj).sha256 !== createHash("sha256").update(o.programBytes).digest("hex"))
    throw new Refused("program_mismatch");
  if ((c.agent_manifests as Obj | undefined)?.sha256 !== o.agentManifests) throw new Refused("manifests_mismatch");
  return c;
}

function canonicalBase64url(part: string): Buffer {
  if (!/^[A-Za-z0-9_-]+$/.test(part) || part.length % 4 === 1) throw new Refused("malformed");
  const bytes = Buffer.from(part, "base64url");
  if (bytes.toString("base64url") !== part) throw new Refused("malformed"); // unused bits not zero
  return bytes;
}

function jsonObject(bytes: Uint8Array): Obj | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes), (key, v: unknown) => {
      if (key === "__proto__") throw new Error("__proto__");
      return v;
    });
    return isObj(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

// ---- claims ("Claims")

const SHA = /^[0-9a-f]{64}$/;
const OP = /^[a-z][a-z0-9_]*\.[a-z0-9_]+$/;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const only = (o: Obj, allowed: string[], required: string[] = allowed) =>
  Object.keys(o).every((k) => allowed.includes(k)) && required.every((k) => k in o);
const text = (v: unknown) => typeof v === "string" && v !== "";
const seconds = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const hashObj = (v: unknown) => isObj(v) && only(v, ["sha256"]) && typeof v.sha256 === "string" && SHA.test(v.sha256);
const countMax = (v: unknown, nullable: boolean) =>
  isObj(v) && only(v, ["max"]) && ((nullable && v.max === null) || seconds(v.max));

function claimsValid(c: Obj): boolean {
  const all = [
    "iss",
    "aud",
    "sub",
    "iat",
    "nbf",
    "exp",
    "jti",
    "program",
    "decision",
    "policy",
    "grants",
    "across",
    "approver",
    "agent_manifests",
  ];
  if (!only(c, all, all.slice(0, 12))) return false;
  const ok =
    text(c.iss) &&
    typeof c.aud === "string" &&
    text(c.sub) &&
    seconds(c.iat) &&
    seconds(c.nbf) &&
    seconds(c.exp) &&
    typeof c.jti === "string" &&
    /^[A-Za-z0-9_-]{22}$/.test(c.jti) &&
    isObj(c.program) &&
    only(c.program, ["sha256", "entry"]) &&
    typeof c.program.sha256 === "string" &&
    SHA.test(c.program.sha256) &&
    text(c.program.entry) &&
    ["auto_approved", "approved_once", "approved_remember"].includes(c.decision as string) &&
    (c.approver === undefined ? c.decision === "auto_approved" : text(c.approver) && c.decision !== "auto_approved") &&
    hashObj(c.policy) &&
    (c.agent_manifests === undefined || hashObj(c.agent_manifests)) &&
    Array.isArray(c.grants) &&
    c.grants.every(grantValid) &&
    Array.isArray(c.across) &&
    c.across.every(limitValid);
  if (!ok) return false;
  const ops = (c.grants as Obj[]).map((g) => g.op as string);
  return (
    (c.iat as number) <= (c.nbf as number) &&
    (c.nbf as number) < (c.exp as number) &&
    new Set(ops).size === ops.length &&
    (c.across as Obj[]).every((l) => (l.ops as string[]).every((op) => ops.includes(op)))
  );
}

function grantValid(g: unknown): boolean {
  return (
    isObj(g) &&
    only(g, ["op", "connector", "args", "count", "distinct"], ["op", "connector", "args", "count"]) &&
    typeof g.op === "string" &&
    OP.test(g.op) &&
    isObj(g.connector) &&
    only(g.connector, ["name", "sha256"]) &&
    text(g.connector.name) &&
    typeof g.connector.sha256 === "string" &&
    SHA.test(g.connector.sha256) &&
    isObj(g.args) &&
    Object.values(g.args).every(constraintValid) &&
    countMax(g.count, true) &&
    (g.distinct === undefined || typeof g.distinct === "string")
  );
}

function limitValid(l: unknown): boolean {
  return (
    isObj(l) &&
    only(l, ["ops", "count", "distinct"], ["ops"]) &&
    (l.count !== undefined || l.distinct !== undefined) &&
    Array.isArray(l.ops) &&
    l.ops.length > 0 &&
    l.ops.every((op) => typeof op === "string" && OP.test(op)) &&
    new Set(l.ops).size === l.ops.length &&
    (l.count === undefined || countMax(l.count, false)) &&
    (l.distinct === undefined || typeof l.distinct === "string")
  );
}

const isJson = (v: unknown): boolean =>
  v === null ||
  typeof v === "string" ||
  typeof v === "boolean" ||
  (typeof v === "number" && Number.isFinite(v)) ||
  (Array.isArray(v) ? v.every(isJson) : isObj(v) && Object.values(v).every(isJson));
const list = (v: unknown, min: number, each: (x: unknown) => boolean) =>
  Array.isArray(v) && v.length >= min && v.every(each);
const JSON_TYPES = ["string", "number", "boolean", "null", "array", "object"];

function constraintValid(c: unknown): boolean {
  if (!isObj(c) || Object.keys(c).length !== 1) return false;
  const [key, v] = Object.entries(c)[0]!;
  switch (key) {
    case "eq":
      return isJson(v);
    case "in":
    case "not_in":
      return list(v, 0, isJson);
    case "under":
      return typeof v === "string" && v.startsWith("/");
    case "glob":
    case "prefix":
    case "suffix":
      return text(v);
    case "mailbox_in":
      return list(v, 1, (a) => typeof a === "string" && a.includes("@"));
    case "mailbox_glob":
      return typeof v === "string" && v.includes("@");
    case "host_in":
      return list(v, 1, (e) => typeof e === "string" && hostEntry(e) !== null);
    case "max_length":
    case "min_length":
      return seconds(v);
    case "type":
      return list(v, 1, (t) => JSON_TYPES.includes(t as string));
    case "sha256":
      return list(v, 1, (h) => typeof h === "string" && SHA.test(h));
    case "elements":
    case "not":
    case "json":
      return constraintValid(v);
    case "at":
      return (
        isObj(v) &&
        only(v, ["path", "is"]) &&
        typeof v.path === "string" &&
        pathSteps(v.path) !== null &&
        constraintValid(v.is)
      );
    case "fields":
      return isObj(v) && Object.values(v).every(constraintValid);
    case "all":
      return list(v, 0, constraintValid);
    case "any":
      return list(v, 1, constraintValid);
    case "untrusted":
      return typeof v === "boolean";
    case "from":
      return list(v, 1, (p) => typeof p === "string" && /^(\*|[a-z][a-z0-9_]*\.[a-z0-9_*]+)$/.test(p));
    default:
      return false;
  }
}

// ---- constraints ("Constraints", rules 1 to 19)

type Step = { field: string } | "every";

function pathSteps(path: string): Step[] | null {
  if (!path.startsWith("$")) return null;
  const steps: Step[] = [];
  const step = /\.([A-Za-z_][A-Za-z0-9_]*)|\[("(?:[^"\\\u0000-\u001f]|\\.)*")\]|\[\*\]/y;
  step.lastIndex = 1;
  while (step.lastIndex < path.length) {
    const m = step.exec(path);
    if (m === null) return null;
    if (m[1] !== undefined) steps.push({ field: m[1] });
    else if (m[2] !== undefined) {
      try {
        steps.push({ field: JSON.parse(m[2]) as string });
      } catch {
        return null;
      }
    } else steps.push("every");
  }
  return steps;
}

export function satisfies(c: Obj, v: Json): boolean {
  const [key, op] = Object.entries(c)[0]! as [string, never];
  const str = typeof v === "string";
  switch (key) {
    case "all":
      return (op as Obj[]).every((part) => satisfies(part, v));
    case "max_length":
      return (str || Array.isArray(v)) && (v as string | Json[]).length <= op;
    case "min_length":
      return (str || Array.isArray(v)) && (v as string | Json[]).length >= op;
    case "type":
      return (op as string[]).includes(v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
    case "sha256":
      return str && (op as string[]).includes(createHash("sha256").update(v, "utf8").digest("hex"));
    case "elements":
      return Array.isArray(v) && v.every((e) => satisfies(op, e));
    case "fields": {
      const fields = op as Record<string, Obj>;
      return (
        isObj(v) &&
        Object.keys(v).every((k) => Object.hasOwn(fields, k)) &&
        Object.entries(fields).every(([k, f]) =>
          satisfies(f, Object.hasOwn(v, k) ? (v as Record<string, Json>)[k]! : null),
        )
      );
    }
    case "json": {
      const parsed = str ? jsonText(v) : undefined;
      return parsed !== undefined && satisfies(op, parsed.value);
    }
    case "at": {
      const { path, is } = op as { path: string; is: Obj };
      return atPath(pathSteps(path)!, is, v);
    }
  }
  if (Array.isArray(v)) return v.every((e) => satisfies(c, e));
  switch (key) {
    case "any":
      return (op as Obj[]).some((part) => satisfies(part, v));
    case "not":
      return !satisfies(op, v);
    case "eq":
      return equal(op, v);
    case "in":
      return (op as Json[]).some((m) => equal(m, v));
    case "not_in":
      return !(op as Json[]).some((m) => equal(m, v));
    case "mailbox_in":
      return str && (op as string[]).some((m) => mailbox(m) === mailbox(v));
  }
  if (!str) return false;
  switch (key) {
    case "under": {
      const [p, b] = [normalPath(v), normalPath(op)];
      return p !== null && b !== null && (b === "/" || p === b || p.startsWith(`${b}/`));
    }
    case "glob":
      return (op as string).includes("@") ? wildcard(canonical(op), canonical(v)) : wildcard(op, v);
    case "mailbox_glob":
      return wildcard(canonical(op), canonical(v)) || wildcard(mailbox(op), mailbox(v));
    case "prefix":
      return v.startsWith(op);
    case "suffix":
      return v.endsWith(op);
    case "host_in": {
      const target = urlTarget(v);
      return (
        target !== null &&
        (op as string[]).some((e) => {
          const entry = hostEntry(e);
          return entry !== null && entry.host === target.host && (entry.port === null || entry.port === target.port);
        })
      );
    }
    default:
      return false;
  }
}

function atPath(steps: Step[], is: Obj, v: Json): boolean {
  if (steps.length === 0) return satisfies(is, v);
  const [step, ...rest] = steps as [Step, ...Step[]];
  if (step === "every") return Array.isArray(v) ? v.every((e) => atPath(rest, is, e)) : atPath(rest, is, null);
  return atPath(rest, is, isObj(v) && Object.hasOwn(v, step.field) ? (v as Record<string, Json>)[step.field]! : null);
}

/** Deep JSON equality, key order ignored; an operand string holding `@` compares as a canonical address. */
function equal(operand: Json, v: Json): boolean {
  if (typeof operand === "string" && operand.includes("@"))
    return typeof v === "string" && canonical(v) === canonical(operand);
  return sortedJson(operand) === sortedJson(v);
}

function sortedJson(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(",")}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson((v as Record<string, Json>)[k]!)}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

const canonical = (a: string) => (a.endsWith(".") ? a.slice(0, -1) : a).replace(/[A-Z]/g, (ch) => ch.toLowerCase());

function mailbox(a: string): string {
  const c = canonical(a);
  if (c.split("@").length !== 2 || c.includes('"')) return c;
  let [local, domain] = c.split("@") as [string, string];
  local = local.split("+")[0]!;
  if (domain === "googlemail.com") domain = "gmail.com";
  if (domain === "gmail.com") local = local.replaceAll(".", "");
  return `${local}@${domain}`;
}

/** `*` any run, `?` one UTF-16 code unit: as a regular expression over code units. */
function wildcard(pattern: string, value: string): boolean {
  let re = "^";
  for (const ch of pattern.split(""))
    re += ch === "*" ? "[\\s\\S]*" : ch === "?" ? "[\\s\\S]" : ch.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  return new RegExp(`${re}$`).test(value);
}

function normalPath(p: string): string | null {
  if (!p.startsWith("/") || p.includes("\0")) return null;
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return `/${out.join("/")}`;
}

const canonicalHost = (h: string) => {
  const lower = h.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
};

function urlTarget(v: string): { host: string; port: number } | null {
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return null;
  }
  const fallback = { "http:": 80, "https:": 443 }[url.protocol];
  if (fallback === undefined || url.hostname === "") return null;
  return { host: canonicalHost(url.hostname), port: url.port === "" ? fallback : Number(url.port) };
}

function hostEntry(e: string): { host: string; port: number | null } | null {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^\s/\\?#@:[\]]+)(?::(\d{1,5}))?$/.exec(e);
  if (m === null) return null;
  const port = m[2] === undefined ? null : Number(m[2]);
  if (port !== null && port > 65535) return null;
  try {
    return { host: canonicalHost(new URL(`http://${m[1]}/`).hostname), port };
  } catch {
    return null;
  }
}

/** Rule 7: JSON text within the bounds, no object naming a key twice. */
function jsonText(t: string): { value: Json } | undefined {
  if (t.length > 4_194_304) return undefined;
  let value: Json;
  try {
    value = JSON.parse(t) as Json;
  } catch {
    return undefined;
  }
  // The text parsed, so its strings are closed and its brackets matched: one pass over its tokens.
  const open: (Set<string> | null)[] = [];
  const token = /"(?:[^"\\]|\\.)*"\s*(:)?|[{[]|[}\]]/g;
  for (let m = token.exec(t); m !== null; m = token.exec(t)) {
    const s = m[0];
    if (s === "{" || s === "[") {
      open.push(s === "{" ? new Set() : null);
      if (open.length > 64) return undefined;
    } else if (s === "}" || s === "]") open.pop();
    else if (m[1] !== undefined) {
      const key = JSON.parse(s.slice(0, s.lastIndexOf('"') + 1)) as string;
      const keys = open.at(-1)!;
      if (keys.has(key)) return undefined;
      keys.add(key);
    }
  }
  return { value };
}

// ---- one call ("before each call")

interface Ledger {
  max: number | null;
  distinct: string | undefined;
  calls: number;
  seen: Set<string>;
}

/** A verified receipt's run: the ledgers of its grants and of its limits across grants. */
export class DocRun {
  readonly #grants = new Map<string, { grant: Obj; own: Ledger; across: Ledger[] }>();
  readonly #exp: number;

  constructor(claims: Obj) {
    this.#exp = claims.exp as number;
    const across = (claims.across as Obj[]).map((l) => ({
      ops: l.ops as string[],
      ledger: ledger(
        ((l.count as Obj | undefined)?.max as number | undefined) ?? null,
        l.distinct as string | undefined,
      ),
    }));
    for (const g of claims.grants as Obj[]) {
      this.#grants.set(g.op as string, {
        grant: g,
        own: ledger((g.count as Obj).max as number | null, g.distinct as string | undefined),
        across: across.filter((l) => l.ops.includes(g.op as string)).map((l) => l.ledger),
      });
    }
  }

  check(op: string, connector: { name: string; sha256: string }, args: Record<string, Json>, nowSeconds: number): void {
    if (!(this.#exp > nowSeconds - TOLERANCE)) throw new Refused("expired");
    const entry = this.#grants.get(op);
    if (entry === undefined) throw new Refused("no_grant", "grant_violation");
    const pinned = entry.grant.connector as Obj;
    if (pinned.name !== connector.name || pinned.sha256 !== connector.sha256)
      throw new Refused("connector_mismatch", "grant_violation");
    for (const [input, c] of Object.entries(entry.grant.args as Record<string, Obj>)) {
      if (!Object.hasOwn(args, input)) throw new Refused("missing_argument", "grant_violation");
      if (!satisfies(c, args[input]!)) throw new Refused("argument_refused", "grant_violation");
    }
    const fresh = [entry.own, ...entry.across].map((l) => ({ l, keys: admit(l, args) }));
    for (const { l, keys } of fresh) {
      l.calls++;
      for (const k of keys) l.seen.add(k);
    }
  }
}

const ledger = (max: number | null, distinct: string | undefined): Ledger => ({
  max,
  distinct,
  calls: 0,
  seen: new Set(),
});

function admit(l: Ledger, args: Record<string, Json>): string[] {
  if (l.max !== null && !(l.calls < l.max)) throw new Refused("count_exceeded", "grant_violation");
  if (l.distinct === undefined) return [];
  if (!Object.hasOwn(args, l.distinct)) throw new Refused("missing_argument", "grant_violation");
  const v = args[l.distinct]!;
  const keys: string[] = [];
  for (const x of (Array.isArray(v) ? v : [v]).filter((e) => e !== null)) {
    const k = typeof x === "string" && x.includes("@") ? `@${mailbox(x)}` : sortedJson(x);
    if (l.seen.has(k) || keys.includes(k)) throw new Refused("not_distinct", "grant_violation");
    keys.push(k);
  }
  return keys;
}
