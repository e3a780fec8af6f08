import type { z } from "zod";
import { storeUsageError } from "./store-error.js";

/** Check a store operation's input against its schema; a refusal names the field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? "" : ` (${issue.path.join(".")})`;
  throw storeUsageError(`invalid ${what}${where}: ${issue?.message ?? "refused"}`, {
    issues: parsed.error.issues.length,
  });
}
