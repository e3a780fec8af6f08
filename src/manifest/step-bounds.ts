import { holds } from "../constraint/index.js";
import type { AbstractValue, ValueConstraint } from "../model/index.js";
import type { Allowlists } from "./agent-actions.js";
import { listNames } from "./list-names.js";
import type { LoadedConnector } from "./manifest-set.js";
import type { Template, TemplateProblem } from "./template.js";

/**
 * The inputs whose value a connector's capability bounds: the `url` of a connector with network
 * capabilities (its hosts), the `path` of one with fs capabilities (its roots). These are the
 * inputs the shipped connectors read a URL or a path from.
 */
export function boundedInputs(
  connector: LoadedConnector,
  allowlists: Allowlists,
): { input: string; constraint: ValueConstraint; what: string }[] {
  const out: { input: string; constraint: ValueConstraint; what: string }[] = [];
  const hosts = allowlists.hosts[connector.name];
  if (connector.manifest.capabilities.network !== undefined && hosts !== undefined) {
    out.push({
      input: "url",
      constraint: { host_in: [...hosts] },
      what: `on a host that connector ${connector.name} may call (${listNames(hosts)})`,
    });
  }
  const roots = allowlists.roots[connector.name];
  if (connector.manifest.capabilities.fs !== undefined && roots !== undefined) {
    out.push({
      input: "path",
      constraint: { any: roots.map((root) => ({ under: root })) },
      what: `under a root of connector ${connector.name} (${listNames(roots)})`,
    });
  }
  return out;
}

/**
 * A step's URL and path as far as the manifest alone fixes them (a literal, or a template's text
 * before its first `${...}`), checked against the connector's allowlists: a value that can never
 * be inside them is refused here. What the text leaves open is decided with the program's
 * arguments by the analysis, and at run time by the grant and the connector.
 */
export function checkStepBounds(
  inputs: Template,
  connector: LoadedConnector,
  allowlists: Allowlists,
): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  for (const { input, constraint, what } of boundedInputs(connector, allowlists)) {
    const known = knownText(fieldOf(inputs, input));
    if (known === undefined || holds(constraint, known.value) !== "no") continue;
    problems.push({ path: [input], message: `${known.shown} can never be ${what}` });
  }
  return problems;
}

function fieldOf(template: Template, key: string): Template | undefined {
  if (template.kind === "record") return template.fields.find(([k]) => k === key)?.[1];
  if (
    template.kind === "literal" &&
    typeof template.value === "object" &&
    template.value !== null &&
    !Array.isArray(template.value) &&
    Object.hasOwn(template.value, key)
  ) {
    return { kind: "literal", value: template.value[key]! };
  }
  return undefined;
}

/**
 * A string template as an abstract value (exact for a literal, its leading text for a template), and how to show it.
 */
function knownText(template: Template | undefined): { value: AbstractValue; shown: string } | undefined {
  if (template === undefined) return undefined;
  if (template.kind === "literal")
    return typeof template.value === "string"
      ? { value: { kind: "const", values: [template.value] }, shown: JSON.stringify(template.value) }
      : undefined;
  if (template.kind !== "text") return undefined;
  let prefix = "";
  for (const part of template.parts) {
    if (typeof part !== "string") break;
    prefix += part;
  }
  return {
    value: { kind: "string", prefix, suffix: "", provenance: [] },
    shown: `a value starting ${JSON.stringify(prefix)}`,
  };
}
