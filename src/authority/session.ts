import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";

/** How long an approver stays logged in. */
export const SESSION_MS = 12 * 60 * 60 * 1000;
export const SESSION_COOKIE = "countersign_session";
export const CSRF_COOKIE = "countersign_csrf";
export const CSRF_HEADER = "x-csrf-token";

const Payload = z.object({ a: z.string().min(1), e: z.number().int(), s: z.string().min(1) }).strict();

export interface Session {
  approver: string;
  expires: number; // ms since the epoch
  id: string;
}

function mac(secret: Buffer, purpose: string, text: string): Buffer {
  return createHmac("sha256", secret).update(`countersign ${purpose}\n${text}`).digest();
}

/**
 * An approver session as a cookie value signed with the approver secret: it needs no table,
 * survives a restart, and ends when the secret changes. `payload.mac`, base64url.
 */
export function makeSession(secret: Buffer, approver: string, now: number): { cookie: string; session: Session } {
  const session: Session = { approver, expires: now + SESSION_MS, id: randomBytes(16).toString("base64url") };
  const payload = Buffer.from(JSON.stringify({ a: session.approver, e: session.expires, s: session.id })).toString(
    "base64url",
  );
  return { cookie: `${payload}.${mac(secret, "session", payload).toString("base64url")}`, session };
}

/** The session a cookie carries, or undefined when it is not one of ours or has expired. */
export function readSession(secret: Buffer, cookie: string | undefined, now: number): Session | undefined {
  if (cookie === undefined) return undefined;
  const [payload, signature, ...rest] = cookie.split(".");
  if (payload === undefined || signature === undefined || rest.length > 0) return undefined;
  if (!sameBytes(Buffer.from(signature, "base64url"), mac(secret, "session", payload))) return undefined;
  let parsed: z.ZodSafeParseResult<z.infer<typeof Payload>>;
  try {
    parsed = Payload.safeParse(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
  } catch {
    return undefined;
  }
  if (!parsed.success || parsed.data.e <= now) return undefined;
  return { approver: parsed.data.a, expires: parsed.data.e, id: parsed.data.s };
}

/** The CSRF token of a session: every approver POST sends it in X-CSRF-Token. */
export function csrfToken(secret: Buffer, session: Session): string {
  return mac(secret, "csrf", session.id).toString("base64url");
}

export function csrfMatches(secret: Buffer, session: Session, given: string | undefined): boolean {
  return given !== undefined && sameBytes(Buffer.from(given, "utf8"), Buffer.from(csrfToken(secret, session), "utf8"));
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
