import { CountersignError } from "../model/index.js";
import type { Json } from "../model/index.js";

/** Nesting a plugin's output may have: what a trusted call's arguments may have (MARSHAL_LIMITS). */
export const MAX_OUTPUT_DEPTH = 64;

/**
 * A plugin's output text as the action's result: a JSON object (every connector answers with one)
 * nested at most MAX_OUTPUT_DEPTH levels, so that nothing downstream (templates, the sandbox,
 * JSON.stringify) meets a shape it cannot handle. Anything else is connector_error.
 */
export function pluginOutput(connector: string, fn: string, text: string): Record<string, Json> {
  const bad = (why: string) =>
    new CountersignError("connector_error", "connector", `${connector}.${fn}: the plugin's output ${why}`, {
      details: { bytes: text.length },
    });
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch {
    throw bad("is not JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw bad("is not a JSON object");
  if (text.length <= 2 * MAX_OUTPUT_DEPTH) return value; // each level takes two characters at least
  // Depth first without recursion: a deep output must not overflow this stack either.
  const open: [Json, number][] = [[value, 1]];
  for (let next = open.pop(); next !== undefined; next = open.pop()) {
    const [node, depth] = next;
    if (depth > MAX_OUTPUT_DEPTH) throw bad(`is nested more than ${MAX_OUTPUT_DEPTH} levels deep`);
    for (const child of Object.values(node as object) as Json[])
      if (child !== null && typeof child === "object") open.push([child, depth + 1]);
  }
  return value;
}
