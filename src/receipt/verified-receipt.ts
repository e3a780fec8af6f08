import type { Call } from "../constraint/index.js";
import type { ReceiptClaims, ReceiptGrant } from "../model/receipt.js";

/** What one grant has admitted so far in this run. */
export interface GrantLedger {
  grant: ReceiptGrant;
  calls: number;
  seen: Set<string>; // canonical JSON of each `distinct` value admitted
}

/**
 * A receipt that passed every check, and the run it governs: `checkCall` admits calls against
 * its grants and records them here. Claims are frozen, so nothing can widen a grant after the check.
 */
export class VerifiedReceipt {
  readonly kid: string;
  readonly claims: ReceiptClaims;
  /** @internal grants by op, built once at verify time; read and updated by checkCall only */
  readonly ledger: ReadonlyMap<string, GrantLedger>;
  /** @internal */
  readonly history: Call[] = [];

  constructor(kid: string, claims: ReceiptClaims) {
    this.kid = kid;
    this.claims = deepFreeze(claims);
    this.ledger = new Map(claims.grants.map((grant) => [grant.op, { grant, calls: 0, seen: new Set<string>() }]));
  }

  /** The calls admitted so far, in order. */
  get calls(): readonly Call[] {
    return this.history;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
