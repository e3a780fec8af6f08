import type { ContractHelper } from "../model/index.js";
import { contractsByConnector } from "../../trusted/contracts/index.js";
import { AGENT_CONNECTOR, type AgentAction } from "./agent-actions.js";
import { actionFunctionName } from "./function-name.js";
import type { LoadedAction, ManifestSet } from "./manifest-set.js";
import type { ActionInput, ResultField } from "./schema.js";

export { actionFunctionName, findActionByFunction } from "./function-name.js";

/** The agent-facing API: module name -> its `declare module` block, and all blocks together. */
export interface ApiDeclarations {
  modules: Record<string, string>;
  all: string;
}

/**
 * Declarations of `countersign`, `trusted/<connector>` and `trusted/<connector>/contracts`,
 * generated from the manifests (never written by hand) so that the API the agent reads, the one
 * programs are compiled against and the one that runs are the same.
 *
 * An action resolves to the fields its manifest declares (`[[result.fields]]`), which the trusted
 * wrapper checks at run time, so a misspelled field is a type error when the program is checked;
 * one that declares none resolves to `Record<string, unknown>`.
 */
export function generateApi(set: ManifestSet): ApiDeclarations {
  const connectors = [...set.connectors.keys()].sort();
  const modules: Record<string, string> = { countersign: countersignModule(connectors) };
  for (const connector of connectors) {
    const actions = [...set.actions.values()]
      .filter((a) => a.connector === connector)
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    modules[`trusted/${connector}`] = declareModule(`trusted/${connector}`, actions.map(actionDeclaration));
    const helpers = contractsByConnector[connector] ?? [];
    if (helpers.length > 0) {
      const body = ['import type { Guarantee } from "countersign";', ...helpers.map(contractDeclaration)];
      modules[`trusted/${connector}/contracts`] = declareModule(`trusted/${connector}/contracts`, body);
    }
  }
  const agent = [...(set.agent?.actions.values() ?? [])];
  if (agent.length > 0)
    modules[`trusted/${AGENT_CONNECTOR}`] = declareModule(
      `trusted/${AGENT_CONNECTOR}`,
      agent.map(agentActionDeclaration),
    );
  return { modules, all: Object.values(modules).join("\n") };
}

function countersignModule(connectors: string[]): string {
  const ops = ['"*"', ...connectors.map((c) => `\`${c}.\${string}\``)].join(" | ");
  return declareModule("countersign", [
    "/** A JSON value. */\nexport type Json = string | number | boolean | null | Json[] | { [key: string]: Json };",
    [
      "/**",
      " * A condition on one argument. Exactly one key. On an array argument it applies to each element,",
      " * except max_length, min_length, type, elements, fields and all, which look at the value itself.",
      " */",
      "export type ValueConstraint =",
      "  | { eq: Json }",
      "  | { in: Json[] }",
      "  | { not_in: Json[] }",
      "  | { under: string } // an absolute directory; `~`, `.` and `..` are resolved first",
      '  | { glob: string } // `*` matches any run of characters, e.g. "*@example.com"',
      "  | { host_in: string[] } // the URL's host is one of these",
      "  | { mailbox_in: string[] } // an address reaching one of these mailboxes, however written (case, trailing dot, +tag, Gmail dots)",
      '  | { mailbox_glob: string } // the same, for a pattern such as "*@example.com"',
      "  | { sha256: string[] } // a string whose UTF-8 bytes hash (SHA-256, lower-case hex) to one of these",
      "  | { prefix: string } // starts with exactly this text",
      "  | { suffix: string } // ends with exactly this text",
      "  | { max_length: number }",
      "  | { min_length: number }",
      '  | { type: ("string" | "number" | "boolean" | "null" | "array" | "object")[] }',
      "  | { elements: ValueConstraint } // an array whose every element satisfies it",
      "  | { fields: { [field: string]: ValueConstraint } } // an object with only these fields",
      "  | { all: ValueConstraint[] }",
      "  | { any: ValueConstraint[] }",
      "  | { not: ValueConstraint };",
    ].join("\n"),
    `/** An op such as \`email.send_email\`, a glob such as \`email.*\` or \`email.send_*\`, or \`*\` for every op. */\nexport type OpPattern = ${ops};`,
    [
      "/**",
      " * A promise about the effects of the matching ops: per-argument conditions, a maximum number of",
      " * calls, and an argument whose values never repeat. countersign proves it, refutes it (the program",
      " * is rejected) or enforces it at run time on every call.",
      " */",
      "export interface Guarantee {",
      "  op: OpPattern;",
      "  args?: { [input: string]: ValueConstraint };",
      "  count?: { max: number };",
      "  distinct?: string;",
      "}",
    ].join("\n"),
    "/** A program ready to submit: export it as the module's default. */\nexport interface Program {\n  readonly rationale: string;\n  readonly guarantees: readonly Guarantee[];\n}",
    [
      "/**",
      " * Declare the program. `rationale` is shown to the user as your words; `guarantees` are checked",
      " * against what the program can do; `main` makes the trusted calls. What `main` returns (plain",
      " * JSON data, or nothing) comes back to you with the run, with where each part of it came from.",
      " */",
      "export function program(spec: { rationale: string; guarantees?: Guarantee[]; main: () => Promise<Json | void> }): Program;",
    ].join("\n"),
    [
      "/**",
      " * The value a quarantined result stands for. Where a run's value held untrusted data, you were",
      ' * shown `{ "$handle": "h_…", type, length, from }` instead of it: pass that id, as a string',
      " * literal, to use the value in this program without reading it. It keeps its sources: the policy",
      " * treats it as the result of the ops in `from`.",
      " */",
      "export function fromHandle(id: string): Promise<Json>;",
    ].join("\n"),
  ]);
}

function actionDeclaration(action: LoadedAction): string {
  const doc = [action.manifest.description, "", `Effect: \`${action.op}\`.`];
  return signature(action, doc, action.manifest.result.fields);
}

/** An agent action's effects are its steps' trusted actions: the policy and the user see those. */
function agentActionDeclaration(action: AgentAction): string {
  const ops = action.steps.map((step) => `\`${step.op}\``).join(", then ");
  const doc = [`Agent-submitted action: ${action.manifest.description}`, "", `Effects: ${ops}.`];
  return signature(action, doc, action.steps.at(-1)?.manifest.result.fields ?? []);
}

/** `result`: the fields the call resolves to, as the trusted action that answers declares them. */
function signature(action: LoadedAction, doc: string[], result: readonly ResultField[]): string {
  const { manifest } = action;
  if (manifest.approval.required) doc.push("Requires the user's approval unless the policy allows it.");
  doc.push("Resolves to the connector's response: data from outside, to be checked before use.");
  const optional = manifest.inputs.every((input) => !input.required);
  const args = objectType(manifest.inputs, "{}");
  const resolves = objectType(result, "Record<string, unknown>");
  const signature = `export function ${actionFunctionName(manifest.name)}(args${optional ? "?" : ""}: ${args}): Promise<${resolves}>;`;
  return `${jsDoc(doc)}\n${signature}`;
}

/** An object type with one documented property per field; `none` when there are none. */
function objectType(fields: readonly (ActionInput | ResultField)[], none: string): string {
  if (fields.length === 0) return none;
  return `{\n${indent(fields.map((field) => `${jsDoc([field.description])}\n${property(field)}`).join("\n"))}\n}`;
}

function property(field: ActionInput | ResultField): string {
  const type = field.type === "array" ? `${tsType(field.items_type ?? "object")}[]` : tsType(field.type);
  return `${field.name}${field.required ? "" : "?"}: ${type};`;
}

function tsType(type: string): string {
  if (type === "integer" || type === "number") return "number";
  if (type === "object") return "Record<string, unknown>";
  return type; // string, boolean
}

function contractDeclaration(helper: ContractHelper): string {
  const params = helper.params.map((p) => `${p.name}: ${p.type}`).join(", ");
  return `${jsDoc([helper.doc])}\nexport function ${helper.name}(${params}): Guarantee;`;
}

function declareModule(name: string, members: string[]): string {
  return `declare module ${JSON.stringify(name)} {\n${indent(members.join("\n\n"))}\n}\n`;
}

/** A JSDoc block; `*\/` inside manifest text must not end the comment early. */
function jsDoc(lines: string[]): string {
  const text = lines.flatMap((line) => line.split("\n")).map((line) => line.replaceAll("*/", "*\\/"));
  if (text.length === 1) return `/** ${text[0]} */`;
  return ["/**", ...text.map((line) => (line === "" ? " *" : ` * ${line}`)), " */"].join("\n");
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => (line === "" ? line : `  ${line}`))
    .join("\n");
}
