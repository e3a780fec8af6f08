import { CountersignError } from "../model/index.js";
import type { GrantViolationReason, ReceiptInvalidReason } from "../model/index.js";

/** A refused receipt, with the stable reason code callers and tests match on. */
export function invalid(reason: ReceiptInvalidReason, message: string): CountersignError {
  return new CountersignError("receipt_invalid", "receipt", `receipt refused (${reason}): ${message}`, {
    details: { reason },
  });
}

/** A refused call, naming the grant (op) and, where one is at fault, the argument. */
export function violation(reason: GrantViolationReason, op: string, message: string, input?: string): CountersignError {
  const details: Record<string, unknown> = input === undefined ? { reason, op } : { reason, op, input };
  return new CountersignError("grant_violation", "receipt", `${op}: ${message}`, { details });
}
