import type { Reference, Template } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Json } from "../model/index.js";
import { resolvePath } from "./resolve-path.js";

/**
 * Fill a template parsed at manifest load with values from `scope` (`args` and each finished
 * step's output). A string that is exactly one reference takes the value with its JSON type, and
 * an absent value drops the field (an optional input left out); inside a longer string a value is
 * stringified, and an absent one is an error.
 */
export function fillTemplate(template: Template, scope: Record<string, Json>): Json | undefined {
  switch (template.kind) {
    case "literal":
      return template.value;
    case "reference":
      return resolvePath(scope, template.reference.path);
    case "text":
      return template.parts.map((part) => (typeof part === "string" ? part : text(part, scope))).join("");
    case "list":
      return template.items.map((item) => fillTemplate(item, scope) ?? null);
    case "record": {
      const out: Record<string, Json> = {};
      for (const [key, item] of template.fields) {
        const value = fillTemplate(item, scope);
        if (value !== undefined) out[key] = value;
      }
      return out;
    }
  }
}

function text(reference: Reference, scope: Record<string, Json>): string {
  const value = resolvePath(scope, reference.path);
  if (value === undefined)
    throw new CountersignError("connector_error", "connector", `\${${reference.path}} has no value`, {
      details: { reference: reference.path },
    });
  return typeof value === "string" ? value : JSON.stringify(value);
}
