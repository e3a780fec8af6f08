import { canonicalForm, type InputFormat } from "../constraint/index.js";
import type { LoadedAction } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Json } from "../model/index.js";

/**
 * The arguments with every input the action declares a `format` for in its canonical form (on
 * an array input, each item): a URL as the WHATWG serializer writes it, a path in its lexical
 * normal form, an address as the constraint language compares it. The wrapper checks the grant on
 * these values and the connector gets exactly them. A URL or path whose canonical form is not what
 * a person reads in it, or an address whose folding would go on in the connector, is refused
 * (grant_violation, reason non_canonical, naming the input, the raw text and the canonical one);
 * nothing is sent. Values that are not strings are left as they
 * are: the type checks refuse them. Returns a new object; `args` is not changed.
 */
export function canonicalArgs(action: LoadedAction, args: Readonly<Record<string, Json>>): Record<string, Json> {
  // not arguments: the caller's checks refuse them
  if (args === null || typeof args !== "object" || Array.isArray(args)) return args;
  const out: Record<string, Json> = { ...args };
  for (const input of action.manifest.inputs) {
    const format = input.format;
    if (format === undefined || !Object.hasOwn(args, input.name)) continue;
    const value = args[input.name]!;
    const one = (item: Json, path: string): Json =>
      typeof item === "string" ? canonicalString(action.op, input.name, path, format, item) : item;
    out[input.name] = Array.isArray(value)
      ? value.map((item, i) => one(item, `${input.name}[${i}]`))
      : one(value, input.name);
  }
  return out;
}

/** One string in the canonical form of `format`, or the non_canonical refusal. */
export function canonicalString(op: string, input: string, path: string, format: InputFormat, raw: string): string {
  const form = canonicalForm(format, raw);
  if (form.ok) return form.canonical;
  const canonical = "canonical" in form ? form.canonical : undefined;
  const shown = canonical === undefined ? "" : ` (it would be sent as ${JSON.stringify(canonical)})`;
  throw new CountersignError(
    "grant_violation",
    "connector",
    `${op}: argument \`${path}\` is not ${format === "email" ? "an address" : `a ${format}`} in canonical form (${form.why.replaceAll("_", " ")}): ${JSON.stringify(raw)}${shown}`,
    {
      details: {
        reason: "non_canonical",
        op,
        input,
        format,
        why: form.why,
        raw,
        ...(canonical === undefined ? {} : { canonical }),
      },
    },
  );
}
