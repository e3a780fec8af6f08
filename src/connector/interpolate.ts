import { CountersignError } from "../model/errors.js";
import type { Json } from "../model/json.js";
import { resolvePath } from "./resolve-path.js";

const REFERENCE = /\$\{([a-z][a-z0-9_]*(?:\.[A-Za-z0-9_]+)+)\}/g;
const WHOLE = /^\$\{([a-z][a-z0-9_]*(?:\.[A-Za-z0-9_]+)+)\}$/;

/**
 * Replace `${args.X}` and `${step.field}` references with values from `scope` (`args` and each
 * finished step's output). A string that is exactly one reference takes the value with its JSON
 * type, and an absent value drops the field (an optional input left out); inside a longer string
 * a value is stringified, and an absent one is an error.
 */
export function interpolate(template: unknown, scope: Record<string, Json>): Json | undefined {
  if (typeof template === "string") {
    const whole = WHOLE.exec(template);
    if (whole !== null) return resolvePath(scope, whole[1]!);
    return template.replace(REFERENCE, (_, path: string) => {
      const value = resolvePath(scope, path);
      if (value === undefined) throw new CountersignError("connector_error", "connector", `\${${path}} has no value`, { details: { reference: path } });
      return typeof value === "string" ? value : JSON.stringify(value);
    });
  }
  if (Array.isArray(template)) return template.map((item) => interpolate(item, scope) ?? null);
  if (template !== null && typeof template === "object") {
    const out: Record<string, Json> = {};
    for (const [key, value] of Object.entries(template)) {
      const resolved = interpolate(value, scope);
      if (resolved !== undefined) out[key] = resolved;
    }
    return out;
  }
  return template as Json;
}
