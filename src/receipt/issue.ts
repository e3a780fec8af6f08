import type { CrossOpLimit, DecisionKind, Grant } from "../model/index.js";
import { CountersignError } from "../model/index.js";
import {
  ApprovalKind,
  DEFAULT_LIFETIME_SECONDS,
  MAX_LIFETIME_SECONDS,
  MAX_RECEIPT_BYTES,
  RECEIPT_AUDIENCE,
  RECEIPT_TYP,
} from "../model/index.js";
import { checkedClaims } from "./checked-claims.js";
import { describeIssues } from "./describe-issues.js";
import { signEd25519 } from "./ed25519.js";
import type { KeyEntry } from "./keyring.js";
import { timeOrderedToken } from "./time-ordered-token.js";

/** What signing needs of a keyring: its active key. */
export type SigningKeys = { active: Pick<KeyEntry, "kid" | "privateKey"> };

export interface IssueInput {
  requestId: string;
  program: { sha256: string; entry: string };
  decision: DecisionKind;
  policySha256: string;
  grants: Grant[];
  across: CrossOpLimit[]; // the decision's limits over several grants: required, so that none is dropped by mistake
  approver?: string;
  agentManifestsSha256?: string; // the program was analyzed with agent manifests: bind their hash
  lifetimeSeconds?: number;
  issuer: string;
}

/** A signed receipt with what the authority records of it before the token leaves. */
export interface IssuedReceipt {
  token: string;
  jti: string;
  exp: number;
}

/**
 * Sign a receipt for an approved request with the keyring's active key. Only approvals get one;
 * the claims are checked against the same schema the verifier uses, so we never sign a receipt
 * that every runner would refuse. A receipt larger than runners accept (grants carry the facts,
 * so very long constant arguments can get there) is refused as resource_limit_exceeded: the
 * grants are never loosened to fit.
 */
export async function issueReceipt(input: IssueInput, keys: SigningKeys, now: Date = new Date()): Promise<string> {
  return issueReceiptRecord(input, keys, now).token;
}

/** issueReceipt, synchronously, with the receipt's jti and exp beside the token. */
export function issueReceiptRecord(input: IssueInput, keys: SigningKeys, now: Date = new Date()): IssuedReceipt {
  const lifetime = input.lifetimeSeconds ?? DEFAULT_LIFETIME_SECONDS;
  if (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > MAX_LIFETIME_SECONDS) {
    throw new CountersignError(
      "config_error",
      "receipt",
      `receipt lifetime must be a whole number of seconds from 1 to ${MAX_LIFETIME_SECONDS}, not ${lifetime}`,
      {
        details: { lifetimeSeconds: lifetime },
      },
    );
  }
  if (!ApprovalKind.safeParse(input.decision).success) {
    throw refused(`no receipt for a request that was not approved (decision ${input.decision})`);
  }
  const iat = Math.floor(now.getTime() / 1000);
  const checked = checkedClaims(
    {
      iss: input.issuer,
      aud: RECEIPT_AUDIENCE,
      program: { sha256: input.program.sha256, entry: input.program.entry },
      decision: input.decision,
      policy: { sha256: input.policySha256 },
      grants: input.grants,
      across: input.across,
      ...(input.approver === undefined ? {} : { approver: input.approver }),
      ...(input.agentManifestsSha256 === undefined ? {} : { agent_manifests: { sha256: input.agentManifestsSha256 } }),
    },
    { sub: input.requestId, iat, nbf: iat, exp: iat + lifetime, jti: timeOrderedToken(now.getTime()) },
  );
  if (!checked.success) throw refused(describeIssues(checked.error));
  const claims = checked.data;
  // A compact JWS signed by synchronous node:crypto: jose's WebCrypto path cost the authority a
  // promise and key handling per receipt, a visible part of a cached submission's time.
  const signingInput = `${header(keys.active.kid)}.${base64url(checked.json)}`;
  const token = `${signingInput}.${signEd25519(keys.active.privateKey, Buffer.from(signingInput, "ascii")).toString("base64url")}`;
  if (token.length > MAX_RECEIPT_BYTES) {
    throw new CountersignError(
      "resource_limit_exceeded",
      "receipt",
      `cannot issue receipt: it would take ${token.length} bytes, more than the ${MAX_RECEIPT_BYTES} a runner accepts (its grants carry every value the program passes; shorten long constant arguments)`,
      { details: { reason: "too_large", bytes: token.length, limit: MAX_RECEIPT_BYTES } },
    );
  }
  return { token, jti: claims.jti, exp: claims.exp };
}

const base64url = (text: string): string => Buffer.from(text, "utf8").toString("base64url");

/** The encoded JWS header of the last key that signed: the same for every receipt until the key rotates. */
let lastHeader: { kid: string; encoded: string } | undefined;

function header(kid: string): string {
  if (lastHeader?.kid !== kid)
    lastHeader = { kid, encoded: base64url(JSON.stringify({ alg: "EdDSA", typ: RECEIPT_TYP, kid })) };
  return lastHeader.encoded;
}

function refused(message: string): CountersignError {
  return new CountersignError("receipt_invalid", "receipt", `cannot issue receipt: ${message}`, {
    details: { reason: "bad_claims" },
  });
}
