import type { Reference, Template } from "../manifest/index.js";
import type { Effect, Json } from "../model/index.js";

/**
 * The values a preview could be fetched with: every combination of the constants the analysis
 * found for the inputs the preview's `args` read (`args`: the call's, by the action's input names) (an input the call
 * leaves out stays out), or why
 * there is none to fetch: an input only known when the program runs, or more combinations than
 * `limit`.
 */
export type PreviewArgs =
  | { kind: "known"; sets: Record<string, Json>[] }
  | { kind: "unknown"; inputs: string[] }
  | { kind: "too_many"; count: number };

export function previewArgs(args: Effect["args"], template: Template, limit: number): PreviewArgs {
  const inputs = [...inputsOf(template, new Set())].sort();
  const unknown = inputs.filter((name) => args[name] !== undefined && args[name]!.kind !== "const");
  if (unknown.length > 0) return { kind: "unknown", inputs: unknown };
  const choices = inputs.map((name) => {
    const value = args[name];
    return { name, values: value?.kind === "const" ? value.values : [undefined] };
  });
  const count = choices.reduce((n, c) => n * c.values.length, 1);
  if (count > limit) return { kind: "too_many", count };
  let sets: Record<string, Json>[] = [{}];
  for (const { name, values } of choices)
    sets = sets.flatMap((set) => values.map((v) => (v === undefined ? set : { ...set, [name]: v })));
  return { kind: "known", sets };
}

/** The inputs a preview's `args` template reads. */
function inputsOf(template: Template, out: Set<string>): Set<string> {
  switch (template.kind) {
    case "literal":
      break;
    case "reference":
      out.add(inputOf(template.reference));
      break;
    case "text":
      for (const part of template.parts) if (typeof part !== "string") out.add(inputOf(part));
      break;
    case "list":
      for (const item of template.items) inputsOf(item, out);
      break;
    case "record":
      for (const [, item] of template.fields) inputsOf(item, out);
      break;
  }
  return out;
}

/** `${args.draft_id}` reads input draft_id (preview args may only read `args.`: the loader checks it). */
const inputOf = (reference: Reference): string => reference.path.split(".")[1]!;
