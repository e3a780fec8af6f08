import { z } from "zod";
import { ErrorClass, toEnvelope } from "../model/index.js";

/** Why a tool could not do its work (no authority, an unknown request, ...), as the agent sees it. */
export const ToolError = z.object({ class: ErrorClass, message: z.string() });

/** What an agent should do next: every result says it. */
export const Next = z.string();

/** A tool's answer: the structured content, and the same as JSON text for hosts that show only text. */
export function toolResult<T extends Record<string, unknown>>(structured: T, isError = false) {
  return {
    content: [{ type: "text" as const, text: JSON.stringify(structured, null, 2) }],
    structuredContent: structured,
    isError,
  };
}

/** An error as a result, never a protocol error: the agent reads what went wrong and what to do. */
export function errorResult(err: unknown, next: string) {
  const { error } = toEnvelope(err, "cli");
  return toolResult({ error: { class: error.class, message: error.message }, next }, true);
}
