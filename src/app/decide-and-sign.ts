import type { ManifestSet } from "../manifest/index.js";
import type { AskAdvice, Facts, PolicyDecision } from "../model/index.js";
import { decide, type Policy } from "../policy/index.js";
import { issueReceiptRecord, type IssuedReceipt, type KeyEntry } from "../receipt/index.js";
import { receiptInput } from "./sign-receipt.js";

/** What signs the receipt of an auto-approved submission: the request it is for, and who signs it when. */
export interface ReceiptOrder {
  id: string;
  issuer: string;
  now: Date;
  key: Pick<KeyEntry, "kid" | "privateKey">; // the keyring's active key
}

/**
 * A program's facts, the policy's decision over them and, when one was ordered and the policy auto-approves, its signed
 * receipt.
 */
export interface ProgramDecision {
  facts: Facts;
  decision: PolicyDecision;
  receipt?: IssuedReceipt;
  advice?: AskAdvice; // a dry run a person would be asked about: which rules ask, and whether a guarantee could help
}

/**
 * The policy's decision over `facts` and, with `order`, the receipt of a program it auto-approves
 * and the analysis accepted (a refused program is no request: it gets no receipt). Pure, so that
 * the authority runs it on its decision thread, and the CLI in process.
 */
export function decideAndSign(
  facts: Facts,
  policy: Policy,
  manifests: ManifestSet,
  order?: ReceiptOrder,
): Omit<ProgramDecision, "facts"> {
  const decision = decide(facts, policy, manifests);
  if (order === undefined || decision.kind !== "auto_approved" || facts.diagnostics.some((d) => d.severity === "error"))
    return { decision };
  const approved = {
    id: order.id,
    facts,
    policy: decision,
    decision: { kind: "auto_approved" as const, approver: null },
  };
  return {
    decision,
    receipt: issueReceiptRecord(receiptInput(approved, order.issuer), { active: order.key }, order.now),
  };
}
