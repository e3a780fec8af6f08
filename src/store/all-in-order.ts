/**
 * Statements issued together (one round trip when the driver pipelines): wait for all of them,
 * and report the failure of the first one that failed in the order they were issued — the cause;
 * those after it fail only because the transaction was aborted, and may settle first. Answers
 * the values of the statements given (an undefined slot: none was issued there).
 */
export async function allInOrder<T>(statements: readonly (Promise<T> | undefined)[]): Promise<T[]> {
  const settled = await Promise.allSettled(statements);
  const values: T[] = [];
  for (const s of settled) {
    if (s.status === "rejected") throw s.reason;
    if (s.value !== undefined) values.push(s.value);
  }
  return values;
}
