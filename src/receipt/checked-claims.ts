import type { z } from "zod";
import { ReceiptClaims } from "../model/index.js";

/** What each receipt has of its own: the request, the times, the jti. */
export type OwnClaims = Pick<ReceiptClaims, "sub" | "iat" | "nbf" | "exp" | "jti">;

/** Valid stand-ins for the receipt's own claims while the rest is checked. */
const STAND_IN: OwnClaims = { sub: "-", iat: 0, nbf: 0, exp: 1, jti: "A".repeat(22) };

/** Distinct claim sets kept checked; the least recently used goes first. */
const MAX_KEPT = 256;
const kept = new Map<string, ReceiptClaims>();

/**
 * The claims as the verifier's schema outputs them (its key order is what gets signed), or the
 * schema's error. Everything but the receipt's own claims comes from the policy decision, and an
 * authority signs an equal decision for every submission of one program: that part is checked by
 * the schema once per distinct JSON text, the receipt's own claims by plain code each time. Only
 * values that JSON keeps exactly go that way (no NaN, no undefined, nothing but plain objects and
 * arrays), so that two inputs with one text are one input; anything else, and any own claim out
 * of its range, is checked whole as before, each time.
 */
export function checkedClaims(shared: object, own: OwnClaims): z.ZodSafeParseResult<ReceiptClaims> {
  const text = exactJson({ ...shared, ...STAND_IN });
  if (text === undefined || !ownInRange(own)) return ReceiptClaims.safeParse({ ...shared, ...own });
  let template = kept.get(text);
  if (template === undefined) {
    const parsed = ReceiptClaims.safeParse(JSON.parse(text));
    if (!parsed.success) return parsed;
    template = parsed.data;
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
  } else kept.delete(text); // most recently used goes last
  kept.set(text, template);
  // The schema's key order stays: the own claims replace stand-ins that are already there.
  return { success: true, data: { ...template, sub: own.sub, iat: own.iat, nbf: own.nbf, exp: own.exp, jti: own.jti } };
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
