import type { Json } from "../model/index.js";
import type { FieldPath } from "../model/index.js";

/** One `${…}` reference: `args.to` reads input `to`, `create.id` reads field `id` of step `create`'s output. */
export interface Reference {
  path: string; // the dotted path inside `${…}`, read from the run's scope
  source: string; // its first segment: "args" or a step id
}

/**
 * A manifest value with its `${…}` references found once, when the manifest is loaded; the
 * connector fills it at run time (connector/interpolate.ts) without reading the text again.
 */
export type Template =
  | { kind: "literal"; value: Json } // no reference anywhere inside
  | { kind: "reference"; reference: Reference } // a string that is exactly one reference: takes the value's JSON type
  | { kind: "text"; parts: (string | Reference)[] } // references inside a longer string: stringified
  | { kind: "list"; items: Template[] }
  | { kind: "record"; fields: [string, Template][] };

export interface TemplateProblem {
  path: FieldPath;
  message: string;
}

/** A parsed value, its references with where they are, and what could not be parsed. */
export interface ParsedTemplate {
  template: Template;
  references: { path: FieldPath; reference: Reference }[];
  problems: TemplateProblem[];
}

const REFERENCE = /^([a-z][a-z0-9_]*)(?:\.[A-Za-z0-9_]+)+$/;

/** Parse every string (at any depth) of a manifest value for `${…}` references. */
export function parseTemplate(value: unknown, at: FieldPath): ParsedTemplate {
  const parsed: ParsedTemplate = { template: { kind: "literal", value: null }, references: [], problems: [] };
  parsed.template = parse(value, at, parsed);
  return parsed;
}

function parse(value: unknown, at: FieldPath, out: ParsedTemplate): Template {
  if (typeof value === "string") return parseString(value, at, out);
  if (Array.isArray(value))
    return collapse({ kind: "list", items: value.map((item, i) => parse(item, [...at, i], out)) });
  if (typeof value === "object" && value !== null && !(value instanceof Date)) {
    return collapse({
      kind: "record",
      fields: Object.entries(value).map(([key, item]) => [key, parse(item, [...at, key], out)]),
    });
  }
  return { kind: "literal", value: value as Json };
}

function parseString(text: string, at: FieldPath, out: ParsedTemplate): Template {
  const parts: (string | Reference)[] = [];
  let from = 0;
  for (let start = text.indexOf("${", from); start >= 0; start = text.indexOf("${", from)) {
    const end = text.indexOf("}", start);
    if (end < 0) {
      out.problems.push({ path: at, message: `unterminated "\${" in ${JSON.stringify(text)}` });
      break;
    }
    if (start > from) parts.push(text.slice(from, start));
    const path = text.slice(start + 2, end);
    const match = REFERENCE.exec(path);
    if (match === null) {
      out.problems.push({
        path: at,
        message: `"\${${path}}" is not a valid reference: use \${args.<input>} or \${<step>.<field>}`,
      });
      parts.push(text.slice(start, end + 1));
    } else {
      const reference = { path, source: match[1]! };
      out.references.push({ path: at, reference });
      parts.push(reference);
    }
    from = end + 1;
  }
  if (from < text.length) parts.push(text.slice(from));
  if (parts.every((p) => typeof p === "string")) return { kind: "literal", value: text };
  if (parts.length === 1) return { kind: "reference", reference: parts[0] as Reference };
  return { kind: "text", parts };
}

/** A list or record without any reference inside is one literal. */
function collapse(template: Extract<Template, { kind: "list" | "record" }>): Template {
  if (template.kind === "list") {
    return template.items.every((t) => t.kind === "literal")
      ? { kind: "literal", value: template.items.map((t) => (t as { value: Json }).value) }
      : template;
  }
  if (!template.fields.every(([, t]) => t.kind === "literal")) return template;
  return {
    kind: "literal",
    value: Object.fromEntries(template.fields.map(([k, t]) => [k, (t as { value: Json }).value])),
  };
}
