import type { Call } from "../constraint/index.js";
import type { ReceiptClaims, ReceiptCrossOpLimit, ReceiptGrant } from "../model/index.js";
import { deepFreeze } from "../model/index.js";

/** What one grant, or one limit across grants, has admitted so far in this run. */
export interface Ledger<T> {
  limit: T;
  calls: number;
  seen: Set<string>; // distinctKey of each `distinct` value admitted
}

/** A grant's own ledger and the ledgers of the cross-op limits that name its op. */
export interface GrantLedgers {
  own: Ledger<ReceiptGrant>;
  across: Ledger<ReceiptCrossOpLimit>[];
}

/**
 * A receipt that passed every check, and the run it governs: `checkCall` admits calls against
 * its grants and records them here. Claims are frozen, so nothing can widen a grant after the check.
 */
export class VerifiedReceipt {
  readonly kid: string;
  readonly claims: ReceiptClaims;
  /** @internal ledgers by op, built once at verify time; read and updated by checkCall only */
  readonly ledgers: ReadonlyMap<string, GrantLedgers>;
  /** @internal */
  readonly history: Call[] = [];

  constructor(kid: string, claims: ReceiptClaims) {
    this.kid = kid;
    this.claims = deepFreeze(claims);
    // One ledger object per cross-op limit, shared by every op it names.
    const across = this.claims.across.map((limit) => ({ limit, calls: 0, seen: new Set<string>() }));
    this.ledgers = new Map(
      this.claims.grants.map((grant) => [
        grant.op,
        {
          own: { limit: grant, calls: 0, seen: new Set<string>() },
          across: across.filter((l) => l.limit.ops.includes(grant.op)),
        },
      ]),
    );
  }

  /** The calls admitted so far, in order. */
  get calls(): readonly Call[] {
    return this.history;
  }
}
