import { describeConstraint, distinctKey, distinctTokens, satisfies } from "../constraint/index.js";
import type { Json } from "../model/json.js";
import { CLOCK_TOLERANCE_SECONDS } from "../model/receipt.js";
import { invalid, violation } from "./refuse.js";
import type { VerifiedReceipt } from "./verified-receipt.js";
import { isoTime } from "./verify.js";

/**
 * One call a trusted wrapper is about to make. `args` is the whole input record as the
 * connector will get it: a declared input the program left out is passed as null, so an input
 * the grant constrains and the call lacks is refused rather than guessed.
 */
export interface CallAttempt {
  op: string;
  connector: { name: string; sha256: string };
  args: Record<string, Json>;
}

/**
 * Admit one call under a verified receipt, or throw. The receipt must still be unexpired; the op
 * needs a grant; the connector must be the one the grant pins; every constrained argument must
 * satisfy its constraint; the op's calls in this run, this one included, must not exceed the
 * grant's count; the `distinct` input's values (each element, for a list; nulls left out) must
 * differ from every value admitted before. A refused call is not recorded and uses up nothing.
 */
export function checkCall(verified: VerifiedReceipt, call: CallAttempt, now: Date = new Date()): void {
  const { exp } = verified.claims;
  if (exp <= now.getTime() / 1000 - CLOCK_TOLERANCE_SECONDS) throw invalid("expired", `expired at ${isoTime(exp)}`);
  const { op, connector, args } = call;
  const ledger = verified.ledger.get(op);
  if (ledger === undefined) throw violation("no_grant", op, "the receipt grants no such call");
  const { grant } = ledger;
  if (connector.name !== grant.connector.name || connector.sha256 !== grant.connector.sha256) {
    throw violation("connector_mismatch", op, `the grant pins connector ${grant.connector.name} ${grant.connector.sha256}, not ${connector.name} ${connector.sha256}`);
  }
  for (const input of Object.keys(grant.args)) {
    if (!Object.hasOwn(args, input)) throw violation("missing_argument", op, `argument "${input}" is constrained by the grant but not passed`, input);
    const constraint = grant.args[input]!;
    if (!satisfies(constraint, args[input]!)) {
      throw violation("argument_refused", op, `argument "${input}" is outside its grant (${describeConstraint(constraint)})`, input);
    }
  }
  if (grant.count.max !== null && ledger.calls >= grant.count.max) {
    throw violation("count_exceeded", op, `the grant allows ${grant.count.max} call${grant.count.max === 1 ? "" : "s"} and all have been made`);
  }
  const fresh = grant.distinct === undefined ? [] : distinctKeys(op, grant.distinct, args, ledger.seen);
  ledger.calls++;
  for (const key of fresh) ledger.seen.add(key);
  verified.history.push({ op, args });
}

/** The canonical keys of the call's `distinct` values, after checking none was admitted before (nor repeats). */
function distinctKeys(op: string, input: string, args: Record<string, Json>, seen: ReadonlySet<string>): string[] {
  if (!Object.hasOwn(args, input)) throw violation("missing_argument", op, `argument "${input}" must be distinct across calls but is not passed`, input);
  const keys: string[] = [];
  for (const token of distinctTokens(args[input]!)) {
    const key = distinctKey(token);
    if (seen.has(key) || keys.includes(key)) throw violation("not_distinct", op, `argument "${input}" repeats ${key}, which must be distinct across calls`, input);
    keys.push(key);
  }
  return keys;
}
