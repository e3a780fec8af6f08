import { describeConstraint, distinctKey, distinctTokens, satisfies } from "../constraint/index.js";
import type { Json } from "../model/index.js";
import { CLOCK_TOLERANCE_SECONDS } from "../model/index.js";
import { invalid, violation } from "./refuse.js";
import type { Ledger, VerifiedReceipt } from "./verified-receipt.js";
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
 * satisfy its constraint; then for the grant and for each limit across grants that names the op
 * (one ledger shared by all of its ops), the calls in this run, this one included, must not exceed
 * its count, and the `distinct` input's values (each element, for a list; nulls left out) must
 * differ from every value admitted before. A refused call is not recorded and uses up nothing.
 */
export function checkCall(verified: VerifiedReceipt, call: CallAttempt, now: Date = new Date()): void {
  const admitted = examine(verified, call, NONE, now);
  for (const { ledger, fresh } of admitted) {
    ledger.calls++;
    for (const key of fresh) ledger.seen.add(key);
  }
  verified.history.push({ op: call.op, args: call.args });
}

/**
 * Every check of checkCall that does not need the inputs `later` (those the trusted wrapper reads
 * before the call, `[resolve]`), recording nothing: a call it refuses must not even be read for,
 * since the read is made with the program's arguments and the user's credential. checkCall, with
 * the values read, still decides the call.
 */
export function checkCallBeforeRead(
  verified: VerifiedReceipt,
  call: CallAttempt,
  later: ReadonlySet<string>,
  now: Date = new Date(),
): void {
  examine(verified, call, later, now);
}

const NONE: ReadonlySet<string> = new Set();

/** checkCall's checks, inputs in `later` left out; the ledgers the call would count in, with its distinct keys. */
function examine(
  verified: VerifiedReceipt,
  call: CallAttempt,
  later: ReadonlySet<string>,
  now: Date,
): { ledger: Ledger<unknown>; fresh: string[] }[] {
  const { exp } = verified.claims;
  if (exp <= now.getTime() / 1000 - CLOCK_TOLERANCE_SECONDS) throw invalid("expired", `expired at ${isoTime(exp)}`);
  const { op, connector, args } = call;
  const ledgers = verified.ledgers.get(op);
  if (ledgers === undefined) throw violation("no_grant", op, "the receipt grants no such call");
  const grant = ledgers.own.limit;
  if (connector.name !== grant.connector.name || connector.sha256 !== grant.connector.sha256) {
    throw violation(
      "connector_mismatch",
      op,
      `the grant pins connector ${grant.connector.name} ${grant.connector.sha256}, not ${connector.name} ${connector.sha256}`,
    );
  }
  for (const input of Object.keys(grant.args)) {
    if (later.has(input)) continue;
    if (!Object.hasOwn(args, input))
      throw violation("missing_argument", op, `argument "${input}" is constrained by the grant but not passed`, input);
    const constraint = grant.args[input]!;
    if (!satisfies(constraint, args[input]!)) {
      throw violation(
        "argument_refused",
        op,
        `argument "${input}" is outside its grant (${describeConstraint(constraint)})`,
        input,
      );
    }
  }
  const distinct = (input: string | undefined) => (input === undefined || later.has(input) ? undefined : input);
  const own = {
    ledger: ledgers.own as Ledger<unknown>,
    fresh: admit(op, ledgers.own, grant.count.max, distinct(grant.distinct), args, "the grant allows"),
  };
  const across = ledgers.across.map((ledger) => ({
    ledger: ledger as Ledger<unknown>,
    fresh: admit(
      op,
      ledger,
      ledger.limit.count?.max ?? null,
      distinct(ledger.limit.distinct),
      args,
      `the receipt allows ${ledger.limit.ops.join(", ")} together`,
    ),
  }));
  return [own, ...across];
}

/**
 * Check one ledger for one more call: under its count, and no `distinct` value seen before or
 * twice in the call. Returns the call's distinct keys, to be recorded once every check passed.
 */
function admit<T>(
  op: string,
  ledger: Ledger<T>,
  max: number | null,
  distinct: string | undefined,
  args: Record<string, Json>,
  allows: string,
): string[] {
  if (max !== null && ledger.calls >= max) {
    throw violation(
      "count_exceeded",
      op,
      max === 0 ? `${allows} no call` : `${allows} ${max} call${max === 1 ? "" : "s"} and all have been made`,
    );
  }
  return distinct === undefined ? [] : distinctKeys(op, distinct, args, ledger.seen);
}

/** The keys of the call's `distinct` values, after checking none was admitted before (nor repeats). */
function distinctKeys(op: string, input: string, args: Record<string, Json>, seen: ReadonlySet<string>): string[] {
  if (!Object.hasOwn(args, input))
    throw violation(
      "missing_argument",
      op,
      `argument "${input}" must be distinct across calls but is not passed`,
      input,
    );
  const keys: string[] = [];
  for (const token of distinctTokens(args[input]!)) {
    const key = distinctKey(token);
    if (seen.has(key) || keys.includes(key))
      throw violation(
        "not_distinct",
        op,
        `argument "${input}" repeats ${key}, which must be distinct across calls`,
        input,
      );
    keys.push(key);
  }
  return keys;
}
