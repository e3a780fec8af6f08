import { hash } from "node:crypto";
import {
  CLOCK_TOLERANCE_SECONDS,
  type Jwks,
  MAX_LIFETIME_SECONDS,
  RECEIPT_AUDIENCE,
  ReceiptClaims,
} from "../model/index.js";
import { describeIssues } from "./describe-issues.js";
import { verifyEd25519 } from "./ed25519.js";
import { parseCompact, parseJsonObject } from "./parse-compact.js";
import { invalid } from "./refuse.js";
import { VerifiedReceipt } from "./verified-receipt.js";
import { importJwks, VerificationKeys } from "./verification-keys.js";

export interface VerifyOptions {
  /** The authority's keys; pass `importJwks(jwks)` to import them once for many receipts. */
  jwks: Jwks | VerificationKeys;
  issuer: string;
  /** The exact bytes about to be run. */
  programBytes: Uint8Array;
  /** The hash (agentManifestsHash) of the agent manifests the run holds; absent: it holds none. */
  agentManifests?: string;
  now?: Date;
}

/**
 * Check a receipt before a run, in this order, each failure a receipt_invalid with its own
 * reason: size and compact form; header (alg, other parameters, typ, kid); the signature, with
 * the JWKS key named by kid; the claims schema; iss; aud; nbf and exp (with a small clock
 * tolerance); lifetime; the program hash; the agent manifests' hash. It does not redeem the jti: see
 * verifyAndRedeemReceipt.
 */
export async function verifyReceipt(token: string, opts: VerifyOptions): Promise<VerifiedReceipt> {
  const { kid, signingInput, payload, signature } = parseCompact(token);
  const keys = opts.jwks instanceof VerificationKeys ? opts.jwks : importJwks(opts.jwks);
  const key = keys.get(kid);
  if (key === undefined) throw invalid("unknown_kid", `no Ed25519 key with kid ${JSON.stringify(kid)} in the JWKS`);
  if (!verifyEd25519(key, signingInput, signature)) throw invalid("bad_signature", "the signature does not verify");

  const parsed = ReceiptClaims.safeParse(parseJsonObject(payload));
  if (!parsed.success) throw invalid("bad_claims", describeIssues(parsed.error));
  const claims = parsed.data;
  if (claims.iss !== opts.issuer)
    throw invalid("bad_issuer", `issuer ${JSON.stringify(claims.iss)} is not ${JSON.stringify(opts.issuer)}`);
  if (claims.aud !== RECEIPT_AUDIENCE)
    throw invalid("bad_audience", `audience ${JSON.stringify(claims.aud)} is not ${RECEIPT_AUDIENCE}`);
  const now = (opts.now ?? new Date()).getTime() / 1000;
  if (claims.nbf > now + CLOCK_TOLERANCE_SECONDS)
    throw invalid("not_yet_valid", `not valid before ${isoTime(claims.nbf)}`);
  if (claims.exp <= now - CLOCK_TOLERANCE_SECONDS) throw invalid("expired", `expired at ${isoTime(claims.exp)}`);
  if (claims.exp - claims.iat > MAX_LIFETIME_SECONDS) {
    throw invalid("lifetime_too_long", `lifetime ${claims.exp - claims.iat} s is more than ${MAX_LIFETIME_SECONDS} s`);
  }
  const actual = hash("sha256", opts.programBytes, "hex"); // one-shot: no Hash object per receipt
  if (actual !== claims.program.sha256)
    throw invalid("program_mismatch", `the receipt is for program ${claims.program.sha256}, not ${actual}`);
  const agent = claims.agent_manifests?.sha256;
  if (agent !== opts.agentManifests) {
    throw invalid(
      "manifests_mismatch",
      `the receipt is for ${agent === undefined ? "no agent manifests" : `agent manifests ${agent}`}, not ${opts.agentManifests === undefined ? "none" : opts.agentManifests}`,
    );
  }
  return new VerifiedReceipt(kid, claims);
}

export function isoTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}
