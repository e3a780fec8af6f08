import { parseJsonPath, readHostEntry } from "../model/index.js";
import type { ReceiptClaims } from "../model/index.js";

/**
 * A receipt's claims checked by hand on the verification path, where the zod schema cost about
 * half the time of the signature check itself: accepts exactly what `ReceiptClaims` accepts (a
 * property test compares the two on random and mutated claims) and returns the same value. It
 * checks `value` in place and freezes every object and array once it has passed, so the claims
 * come out immutable without a second walk: `value` must be fresh (just parsed) and the caller's
 * alone. undefined when refused (the caller asks the schema why).
 */
export function readClaims(value: unknown): ReceiptClaims | undefined {
  if (!isRecord(value) || !hasOnly(value, CLAIM_KEYS, ["iss", "aud", "sub", "iat", "nbf", "exp", "jti", "program", "decision", "policy", "grants", "across"])) return undefined;
  const c = value;
  const ok =
    isText(c.iss) && typeof c.aud === "string" && isText(c.sub) && isSeconds(c.iat) && isSeconds(c.nbf) && isSeconds(c.exp) &&
    typeof c.jti === "string" && JTI.test(c.jti) &&
    isRecord(c.program) && hasOnly(c.program, PROGRAM_KEYS, ["sha256", "entry"]) && isSha256(c.program.sha256) && isText(c.program.entry) && sealed(c.program) &&
    typeof c.decision === "string" && DECISIONS.has(c.decision) &&
    isHash(c.policy) &&
    Array.isArray(c.grants) && c.grants.every(isGrant) && sealed(c.grants) &&
    Array.isArray(c.across) && c.across.every(isCrossOpLimit) && sealed(c.across) &&
    (c.approver === undefined || isText(c.approver)) &&
    (c.agent_manifests === undefined || isHash(c.agent_manifests));
  if (!ok) return undefined;
  // The schema's refinements, in its order.
  const [iat, nbf, exp] = [c.iat as number, c.nbf as number, c.exp as number];
  if (!(iat <= nbf && nbf < exp)) return undefined;
  if ((c.decision === "auto_approved") !== (c.approver === undefined)) return undefined;
  const grants = c.grants as { op: string }[];
  const ops = new Set(grants.map((g) => g.op));
  if (ops.size !== grants.length) return undefined;
  if (!(c.across as { ops: string[] }[]).every((l) => l.ops.every((op) => ops.has(op)))) return undefined;
  Object.freeze(c);
  built.add(c);
  return c as unknown as ReceiptClaims;
}

/** Whether `claims` came from readClaims: frozen all the way down already. */
export function isBuiltFrozen(claims: object): boolean {
  return built.has(claims);
}

const built = new WeakSet<object>();

type Rec = Record<string, unknown>;

const CLAIM_KEYS = new Set(["iss", "aud", "sub", "iat", "nbf", "exp", "jti", "program", "decision", "policy", "grants", "across", "approver", "agent_manifests"]);
const PROGRAM_KEYS = new Set(["sha256", "entry"]);
const GRANT_KEYS = new Set(["op", "connector", "args", "count", "distinct"]);
const CONNECTOR_KEYS = new Set(["name", "sha256"]);
const MAX_KEY = new Set(["max"]);
const AT_KEYS = new Set(["path", "is"]);
const SHA256_KEY = new Set(["sha256"]);
const LIMIT_KEYS = new Set(["ops", "count", "distinct"]);
const DECISIONS = new Set(["auto_approved", "approved_once", "approved_remember"]);
const JSON_TYPES = new Set(["string", "number", "boolean", "null", "array", "object"]);
const SHA256 = /^[0-9a-f]{64}$/;
const JTI = /^[A-Za-z0-9_-]{22}$/;
const CONCRETE_OP = /^[a-z][a-z0-9_]*\.[a-z0-9_]+$/;
const OP_PATTERN = /^(\*|[a-z][a-z0-9_]*\.[a-z0-9_*]+)$/;

function isRecord(v: unknown): v is Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** No key beyond `allowed` (a strict object) and every `required` one present. */
function hasOnly(o: Rec, allowed: ReadonlySet<string>, required: readonly string[]): boolean {
  for (const k of Object.keys(o)) if (!allowed.has(k)) return false;
  for (const k of required) if (!Object.hasOwn(o, k)) return false;
  return true;
}

function sealed(v: object): true {
  Object.freeze(v);
  return true;
}

const isText = (v: unknown): v is string => typeof v === "string" && v.length >= 1;
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const isSeconds = isCount;
const isSha256 = (v: unknown): boolean => typeof v === "string" && SHA256.test(v);
const isHash = (v: unknown): boolean => isRecord(v) && hasOnly(v, SHA256_KEY, ["sha256"]) && isSha256(v.sha256) && sealed(v);

function isGrant(g: unknown): boolean {
  return (
    isRecord(g) && hasOnly(g, GRANT_KEYS, ["op", "connector", "args", "count"]) &&
    typeof g.op === "string" && CONCRETE_OP.test(g.op) &&
    isRecord(g.connector) && hasOnly(g.connector, CONNECTOR_KEYS, ["name", "sha256"]) && isText(g.connector.name) && isSha256(g.connector.sha256) && sealed(g.connector) &&
    isRecord(g.args) && Object.values(g.args).every(isConstraint) && sealed(g.args) &&
    isRecord(g.count) && hasOnly(g.count, MAX_KEY, ["max"]) && (g.count.max === null || isCount(g.count.max)) && sealed(g.count) &&
    (g.distinct === undefined || typeof g.distinct === "string") &&
    sealed(g)
  );
}

function isCrossOpLimit(l: unknown): boolean {
  if (!isRecord(l) || !hasOnly(l, LIMIT_KEYS, ["ops"])) return false;
  const { ops, count, distinct } = l;
  if (!Array.isArray(ops) || ops.length === 0 || !ops.every((op) => typeof op === "string" && CONCRETE_OP.test(op))) return false;
  if (count !== undefined && !(isRecord(count) && hasOnly(count, MAX_KEY, ["max"]) && isCount(count.max) && sealed(count))) return false;
  if (distinct !== undefined && typeof distinct !== "string") return false;
  if (count === undefined && distinct === undefined) return false;
  if (new Set(ops).size !== ops.length) return false;
  return sealed(ops) && sealed(l);
}

/** A value constraint (model/constraint.ts): an object with exactly one known key, its operand checked as that key's schema does. */
function isConstraint(c: unknown): boolean {
  if (!isRecord(c)) return false;
  const keys = Object.keys(c);
  if (keys.length !== 1) return false;
  const key = keys[0]!;
  const v = c[key];
  let ok: boolean;
  switch (key) {
    case "eq":
      ok = isJson(v);
      break;
    case "in":
    case "not_in":
      ok = Array.isArray(v) && v.every(isJson) && sealed(v);
      break;
    case "under":
      ok = typeof v === "string" && v.startsWith("/");
      break;
    case "mailbox_in":
      ok = Array.isArray(v) && v.length >= 1 && v.every((a) => isText(a) && a.includes("@")) && sealed(v);
      break;
    case "mailbox_glob":
      ok = isText(v) && v.includes("@");
      break;
    case "glob":
    case "prefix":
    case "suffix":
      ok = isText(v);
      break;
    case "host_in":
      ok = Array.isArray(v) && v.length >= 1 && v.every((h) => typeof h === "string" && readHostEntry(h) !== null) && sealed(v);
      break;
    case "max_length":
    case "min_length":
      ok = isCount(v);
      break;
    case "sha256":
      ok = Array.isArray(v) && v.length >= 1 && v.every((h) => typeof h === "string" && /^[0-9a-f]{64}$/.test(h)) && sealed(v);
      break;
    case "type":
      ok = Array.isArray(v) && v.length >= 1 && v.every((t) => typeof t === "string" && JSON_TYPES.has(t)) && sealed(v);
      break;
    case "elements":
    case "not":
    case "json":
      ok = isConstraint(v);
      break;
    case "at":
      ok = isRecord(v) && hasOnly(v, AT_KEYS, ["path", "is"]) && typeof v.path === "string" && parseJsonPath(v.path) !== undefined && isConstraint(v.is) && sealed(v);
      break;
    case "fields":
      ok = isRecord(v) && Object.values(v).every(isConstraint) && sealed(v);
      break;
    case "all":
      ok = Array.isArray(v) && v.every(isConstraint) && sealed(v);
      break;
    case "any":
      ok = Array.isArray(v) && v.length >= 1 && v.every(isConstraint) && sealed(v);
      break;
    case "untrusted":
      ok = typeof v === "boolean";
      break;
    case "from":
      ok = Array.isArray(v) && v.length >= 1 && v.every((p) => typeof p === "string" && OP_PATTERN.test(p)) && sealed(v);
      break;
    default:
      ok = false;
  }
  return ok && sealed(c);
}

/** JSON data as the Json schema takes it: finite numbers only, objects and arrays of JSON. */
function isJson(v: unknown): boolean {
  if (v === null || typeof v === "string" || typeof v === "boolean") return true;
  if (typeof v === "number") return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(isJson) && sealed(v);
  return typeof v === "object" && Object.values(v).every(isJson) && sealed(v);
}
