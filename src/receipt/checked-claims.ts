import type { z } from "zod";
import { ReceiptClaims } from "../model/index.js";

/** What each receipt has of its own: the request, the times, the jti. */
export type OwnClaims = Pick<ReceiptClaims, "sub" | "iat" | "nbf" | "exp" | "jti">;

/** Valid stand-ins for the receipt's own claims while the rest is checked. */
const STAND_IN: OwnClaims = { sub: "-", iat: 0, nbf: 0, exp: 1, jti: "A".repeat(22) };

/** Distinct claim sets kept checked; the least recently used goes first. */
const MAX_KEPT = 256;

/** A checked claim set and its JSON text around the own claims (the schema keeps them together, after iss and aud). */
interface Template {
  claims: ReceiptClaims;
  text?: { head: string; tail: string }; // undefined if the schema's key order no longer puts them there
}

const kept = new Map<string, Template>();
/**
 * The template used last, with a private copy of the claims it was made from (parsed from their text: nobody else holds
 * it).
 */
let last: { copy: unknown; template: Template } | undefined;

/** The claims, checked, and their JSON text as signed (the schema's key order), or the schema's error. */
export type CheckedClaims =
  | { success: true; data: ReceiptClaims; json: string }
  | { success: false; error: z.ZodError };

/**
 * The claims as the verifier's schema outputs them (its key order is what gets signed) and their
 * JSON text, or the schema's error. Everything but the receipt's own claims comes from the policy
 * decision, and an authority signs an equal decision for every submission of one program: that
 * part is checked by the schema once per distinct JSON text, and its text kept around the place
 * of the own claims, which are checked by plain code each time and written in. Only values that
 * JSON keeps exactly go that way (no NaN, no undefined, nothing but plain objects and arrays), so
 * that two inputs with one text are one input; anything else, and any own claim out of its range,
 * is checked whole as before, each time.
 */
export function checkedClaims(shared: object, own: OwnClaims): CheckedClaims {
  // Object.assign onto a literal, not a spread: V8 makes new hidden classes for every spread copy
  // that gains keys, which cost more than the rest of this function (the keys are the schema's, no __proto__).
  const whole = Object.assign({}, shared, STAND_IN);
  if (!ownInRange(own)) return withJson(ReceiptClaims.safeParse({ ...shared, ...own }));
  // The claims signed last, again (an authority's repeated program): compared member by member,
  // which costs less than writing their text to look it up.
  let template = last !== undefined && sameExactly(whole, last.copy) ? last.template : undefined;
  if (template === undefined) {
    const text = exactJson(whole);
    if (text === undefined) return withJson(ReceiptClaims.safeParse({ ...shared, ...own }));
    template = kept.get(text);
    if (template === undefined) {
      const parsed = ReceiptClaims.safeParse(JSON.parse(text));
      if (!parsed.success) return parsed;
      template = { claims: parsed.data, ...textAround(parsed.data) };
      if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
    } else kept.delete(text); // most recently used goes last
    kept.set(text, template);
    last = { copy: JSON.parse(text), template };
  }
  // The schema's key order stays: the own claims replace stand-ins that are already there.
  const data = { ...template.claims, sub: own.sub, iat: own.iat, nbf: own.nbf, exp: own.exp, jti: own.jti };
  return {
    success: true,
    data,
    json: template.text === undefined ? JSON.stringify(data) : template.text.head + ownText(own) + template.text.tail,
  };
}

function withJson(result: z.ZodSafeParseResult<ReceiptClaims>): CheckedClaims {
  return result.success ? { success: true, data: result.data, json: JSON.stringify(result.data) } : result;
}

/** The own claims as JSON.stringify writes them inside the claims. */
function ownText(own: OwnClaims): string {
  const s = JSON.stringify;
  return `"sub":${s(own.sub)},"iat":${s(own.iat)},"nbf":${s(own.nbf)},"exp":${s(own.exp)},"jti":${s(own.jti)}`;
}

/**
 * The text of `claims` before and after its own claims; only if that is exactly how JSON.stringify writes them (checked
 * here, once).
 */
function textAround(claims: ReceiptClaims): Pick<Template, "text"> {
  const { iss, aud, sub: _sub, iat: _iat, nbf: _nbf, exp: _exp, jti: _jti, ...rest } = claims;
  const head = `${JSON.stringify({ iss, aud }).slice(0, -1)},`;
  const tail = `,${JSON.stringify(rest).slice(1)}`;
  return head + ownText(claims) + tail === JSON.stringify(claims) ? { text: { head, tail } } : {};
}

const seconds = (n: number): boolean => Number.isSafeInteger(n) && n >= 0;

/** What the schema asks of the own claims (with iat <= nbf < exp), said plainly. */
function ownInRange(own: OwnClaims): boolean {
  return (
    typeof own.sub === "string" &&
    own.sub.length > 0 &&
    seconds(own.iat) &&
    seconds(own.nbf) &&
    seconds(own.exp) &&
    own.iat <= own.nbf &&
    own.nbf < own.exp &&
    typeof own.jti === "string" &&
    /^[A-Za-z0-9_-]{22}$/.test(own.jti)
  );
}

const PLAIN = new Set<unknown>([Object.prototype, Array.prototype]);

/**
 * Whether JSON keeps `value` exactly (keptExactly) and writes it as it writes `copy`, a value
 * parsed from JSON text: the same members in the same order, the same scalars.
 */
function sameExactly(value: unknown, copy: unknown): boolean {
  // The copy's scalars are JSON's own (finite numbers, strings, booleans, null): equal ones are kept exactly.
  if (copy === null || typeof copy !== "object") return value === copy;
  if (
    value === null ||
    typeof value !== "object" ||
    !PLAIN.has(Object.getPrototypeOf(value)) ||
    Array.isArray(value) !== Array.isArray(copy)
  )
    return false;
  if (Array.isArray(copy)) {
    const list = value as unknown[];
    if (list.length !== copy.length) return false;
    for (let i = 0; i < copy.length; i++) if (!(i in list) || !sameExactly(list[i], copy[i])) return false;
    return true;
  }
  const keys = Object.keys(value);
  const copyKeys = Object.keys(copy);
  if (keys.length !== copyKeys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (
      key !== copyKeys[i] ||
      !sameExactly((value as Record<string, unknown>)[key], (copy as Record<string, unknown>)[key])
    )
      return false;
  }
  return true;
}

/** JSON text of a value that JSON keeps exactly, else undefined. */
function exactJson(value: unknown): string | undefined {
  return keptExactly(value) ? JSON.stringify(value) : undefined;
}

/** Strings, finite numbers, booleans, null, and plain arrays and objects of them (no holes, no undefined members). */
function keptExactly(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object": {
      if (value === null) return true;
      if (!PLAIN.has(Object.getPrototypeOf(value))) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!(i in value) || !keptExactly(value[i])) return false;
        return true;
      }
      for (const key in value) if (!keptExactly((value as Record<string, unknown>)[key])) return false;
      return true;
    }
    default:
      return false; // undefined, functions, symbols, bigints
  }
}
