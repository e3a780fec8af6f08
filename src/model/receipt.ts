import { z } from "zod";
import { ValueConstraint } from "./constraint.js";

/** Receipt format constants (docs/architecture.md section 8). */
export const RECEIPT_TYP = "countersign-receipt+jwt";
export const RECEIPT_AUDIENCE = "countersign-runner";
export const DEFAULT_LIFETIME_SECONDS = 300;
export const MAX_LIFETIME_SECONDS = 900;
/** Allowed clock skew between authority and runner, applied to nbf and exp only. */
export const CLOCK_TOLERANCE_SECONDS = 5;
/**
 * The largest receipt. Grants carry the facts (every constant a program passes), so a receipt
 * takes a few KiB; issuing refuses one larger than this, and verifying refuses it unparsed.
 */
export const MAX_RECEIPT_BYTES = 64 * 1024;
export const LOCAL_ISSUER = "countersign-local";

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, "must be a lowercase hex sha256");
const seconds = z.number().int().nonnegative();
const concreteOp = z.string().regex(/^[a-z][a-z0-9_]*\.[a-z0-9_]+$/, "must be a concrete <connector>.<action>");

/** A grant as a receipt carries it: one concrete op (no globs), every object strict. */
export const ReceiptGrant = z
  .object({
    op: concreteOp,
    connector: z.object({ name: z.string().min(1), sha256: sha256Hex }).strict(),
    args: z.record(z.string(), ValueConstraint),
    count: z.object({ max: z.number().int().nonnegative().nullable() }).strict(),
    distinct: z.string().optional(),
  })
  .strict();
export type ReceiptGrant = z.infer<typeof ReceiptGrant>;

/** A limit over several grants with one ledger (CrossOpLimit), as a receipt carries it. */
export const ReceiptCrossOpLimit = z
  .object({
    ops: z.array(concreteOp).min(1),
    count: z.object({ max: z.number().int().nonnegative() }).strict().optional(),
    distinct: z.string().optional(),
  })
  .strict()
  .refine((l) => l.count !== undefined || l.distinct !== undefined, "must have count or distinct")
  .refine((l) => new Set(l.ops).size === l.ops.length, { message: "must not repeat an op", path: ["ops"] });
export type ReceiptCrossOpLimit = z.infer<typeof ReceiptCrossOpLimit>;

/** The decisions a receipt can carry: approvals only. */
export const ApprovalKind = z.enum(["auto_approved", "approved_once", "approved_remember"]);
export type ApprovalKind = z.infer<typeof ApprovalKind>;

/** The payload of a receipt. Strict: a member we do not know is a receipt we do not understand. */
export const ReceiptClaims = z
  .object({
    iss: z.string().min(1),
    aud: z.string(), // checked against RECEIPT_AUDIENCE separately, for its own reason code
    sub: z.string().min(1),
    iat: seconds,
    nbf: seconds,
    exp: seconds,
    jti: z.string().regex(/^[A-Za-z0-9_-]{22}$/, "must be 22 base64url characters (a time prefix and 96 random bits)"),
    program: z.object({ sha256: sha256Hex, entry: z.string().min(1) }).strict(),
    decision: ApprovalKind,
    policy: z.object({ sha256: sha256Hex }).strict(),
    grants: z.array(ReceiptGrant),
    across: z.array(ReceiptCrossOpLimit),
    approver: z.string().min(1).optional(),
    // The agent-submitted action manifests the program was analyzed with (their canonical hash):
    // a runner with other agent manifests, or none, is refused (docs/architecture.md section 4).
    agent_manifests: z.object({ sha256: sha256Hex }).strict().optional(),
  })
  .strict()
  .refine((c) => c.iat <= c.nbf && c.nbf < c.exp, { message: "must have iat <= nbf < exp", path: ["exp"] })
  .refine((c) => (c.decision === "auto_approved") === (c.approver === undefined), {
    message: "approver is required when a person decided and forbidden for auto_approved",
    path: ["approver"],
  })
  .refine((c) => new Set(c.grants.map((g) => g.op)).size === c.grants.length, {
    message: "must hold at most one grant per op",
    path: ["grants"],
  })
  .refine((c) => c.across.every((l) => l.ops.every((op) => c.grants.some((g) => g.op === op))), {
    message: "must name only granted ops",
    path: ["across"],
  });
export type ReceiptClaims = z.infer<typeof ReceiptClaims>;

/** Why a receipt was refused: the stable `details.reason` of a receipt_invalid error. */
export const ReceiptInvalidReason = z.enum([
  "malformed",
  "too_large",
  "bad_alg",
  "bad_header",
  "bad_typ",
  "unknown_kid",
  "bad_signature",
  "bad_claims",
  "bad_issuer",
  "bad_audience",
  "not_yet_valid",
  "expired",
  "lifetime_too_long",
  "program_mismatch",
  "manifests_mismatch", // the runner's agent manifests are not the ones the receipt was issued for
  "replayed",
]);
export type ReceiptInvalidReason = z.infer<typeof ReceiptInvalidReason>;

/** Why a call was refused: the stable `details.reason` of a grant_violation error. */
export const GrantViolationReason = z.enum([
  "no_grant",
  "connector_mismatch",
  "missing_argument",
  "argument_refused",
  "count_exceeded",
  "not_distinct",
  "manifests_mismatch", // an agent action from other manifests than the receipt's
  "not_plain_data", // an argument that is no plain data (a function, a getter, a proxy, ...): refused before any check
  "non_canonical", // a formatted argument (url, path) whose canonical form is not what a person reads in it: refused before any check
]);
export type GrantViolationReason = z.infer<typeof GrantViolationReason>;

/** An Ed25519 public key as the JWKS publishes it. */
export const Ed25519PublicJwk = z.object({
  kty: z.literal("OKP"),
  crv: z.literal("Ed25519"),
  x: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "must be 32 bytes, base64url"),
  kid: z.string().min(1),
  alg: z.literal("EdDSA").optional(),
  use: z.literal("sig").optional(),
  key_ops: z
    .array(z.string())
    .refine((ops) => ops.includes("verify"), "must allow verify")
    .optional(),
});
export type Ed25519PublicJwk = z.infer<typeof Ed25519PublicJwk>;

/** A JWK Set (RFC 7517 section 5). Members are checked one by one when imported. */
export const Jwks = z.object({ keys: z.array(z.record(z.string(), z.unknown())) });
export type Jwks = z.infer<typeof Jwks>;

/**
 * `$COUNTERSIGN_HOME/authority.json`: whom the local runner trusts, and where the authority serves. `jwks_path` is
 * relative to that directory.
 */
export const AuthorityFile = z
  .object({
    issuer: z.string().min(1),
    jwks_path: z.string().min(1).optional(),
    jwks: Jwks.optional(),
    url: z.url({ protocol: /^https?$/ }).optional(), // where `countersign serve` answers: `check` and `run` use it
  })
  .strict()
  .refine((a) => (a.jwks_path === undefined) !== (a.jwks === undefined), "must have exactly one of jwks_path and jwks");
export type AuthorityFile = z.infer<typeof AuthorityFile>;
