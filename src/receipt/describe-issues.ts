import { z } from "zod";

/** One line per error: zod issues as `path: message`, anything else by its message. */
export function describeIssues(err: unknown): string {
  if (err instanceof z.ZodError)
    return err.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
  return err instanceof Error ? err.message : String(err);
}
