import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { CountersignError } from "../model/index.js";
import { readApproverSecret } from "../store/index.js";
import type { AppContext } from "./context.js";

/** A login link works once, within this long of being made. */
export const LOGIN_LINK_MS = 60_000;

const Payload = z
  .object({ n: z.string().regex(/^[A-Za-z0-9_-]{22}$/), e: z.number().int().positive(), a: z.string().min(1).max(200) })
  .strict();

function mac(secret: Buffer, payload: string): Buffer {
  return createHmac("sha256", secret).update(`countersign login link\n${payload}`).digest();
}

/** A one-time login for `approver`, signed with the data directory's approver secret: `payload.mac`, base64url. */
export function makeLoginLink(ctx: Pick<AppContext, "dataDir" | "now">, approver: string): string {
  const payload = Buffer.from(
    JSON.stringify({ n: randomBytes(16).toString("base64url"), e: ctx.now().getTime() + LOGIN_LINK_MS, a: approver }),
  ).toString("base64url");
  return `${payload}.${mac(readApproverSecret(ctx.dataDir), payload).toString("base64url")}`;
}

/**
 * Log in with a link from `countersign ui`: the signature must be the approver secret's, the link
 * not expired (nor made further ahead than its lifetime), and never used before — by this
 * authority or any other sharing the store. Answers the approver it names.
 */
export async function useLoginLink(ctx: AppContext, link: string): Promise<string> {
  const refused = (why: string) =>
    new CountersignError(
      "capability_denied",
      "authority",
      `this login link ${why}: run \`countersign ui\` for a new one`,
      { details: { reason: "bad_login_link" } },
    );
  const [payload, signature, ...rest] = link.split(".");
  if (payload === undefined || signature === undefined || rest.length > 0) throw refused("is malformed");
  const expected = mac(readApproverSecret(ctx.dataDir), payload);
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused("is not valid");
  // Signed is not well formed: a payload that is not JSON is refused like any other malformed link.
  let parsed: z.ZodSafeParseResult<z.infer<typeof Payload>>;
  try {
    parsed = Payload.safeParse(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
  } catch {
    throw refused("is malformed");
  }
  if (!parsed.success) throw refused("is malformed");
  const { n: nonce, e: exp, a: approver } = parsed.data;
  const now = ctx.now().getTime();
  if (exp <= now) throw refused("has expired");
  if (exp > now + LOGIN_LINK_MS) throw refused("is not valid yet");
  if (!(await (await ctx.store()).useLoginLink({ nonce, exp, approver }))) throw refused("was used already");
  return approver;
}
