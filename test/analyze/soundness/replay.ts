import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { admitCall } from "../../../src/connector/admission.js";
import type { ManifestSet } from "../../../src/manifest/manifest-set.js";
import type { PolicyDecision } from "../../../src/model/decision.js";
import { CountersignError } from "../../../src/model/errors.js";
import type { Facts } from "../../../src/model/facts.js";
import { loadPolicy } from "../../../src/config/index.js";
import type { Policy } from "../../../src/policy/schema.js";
import { issueReceipt, jwks, type Keyring } from "../../../src/receipt/index.js";
import type { VerifiedReceipt } from "../../../src/receipt/verified-receipt.js";
import { verifyReceipt } from "../../../src/receipt/verify.js";
import type { ObservedCall } from "../support/concrete-runner.js";

const ISSUER = "countersign-test";

/** A policy from one file's text, with `~` as /home/user. */
export function policyFrom(text: string, set: ManifestSet): Policy {
  const dir = mkdtempSync(join(tmpdir(), "countersign-policy-"));
  writeFileSync(join(dir, "policy.toml"), text);
  return loadPolicy(dir, { manifests: set, home: "/home/user" });
}

/**
 * A person's approval of the decision: a real signed receipt carrying its grants and limits, and a
 * way to start a run under it (a fresh verification, so each run has its own ledgers).
 */
export async function approve(
  source: string,
  facts: Facts,
  decision: PolicyDecision,
  keys: Keyring,
): Promise<() => Promise<VerifiedReceipt>> {
  const token = await issueReceipt(
    {
      requestId: "req",
      program: facts.program,
      decision: "approved_once",
      policySha256: decision.policy.sha256,
      grants: decision.grants,
      across: decision.across,
      approver: "tester",
      issuer: ISSUER,
    },
    keys,
  );
  return () => verifyReceipt(token, { jwks: jwks(keys), issuer: ISSUER, programBytes: Buffer.from(source, "utf8") });
}

/** Where a run stopped: the index of the first refused call and why, or null when all were admitted. */
export interface Replayed {
  refusedAt: number | null;
  error?: CountersignError;
}

/** Feed a run's calls, in order, to the trusted wrapper's check (admitCall), up to the first refusal. */
export function replay(verified: VerifiedReceipt, set: ManifestSet, calls: readonly ObservedCall[]): Replayed {
  for (const [i, call] of calls.entries()) {
    try {
      admitCall(verified, set, call.op, call.args);
    } catch (err) {
      if (!(err instanceof CountersignError)) throw err;
      return { refusedAt: i, error: err };
    }
  }
  return { refusedAt: null };
}
