import { createHash } from "node:crypto";
import { canonicalJson } from "../constraint/index.js";
import { CountersignError } from "../model/index.js";
import type { AgentManifestSource, Json } from "../model/index.js";
import { AGENT_CONNECTOR, type AgentAction, type Allowlists } from "./agent-actions.js";
import { AGENT_LIMITS } from "./agent-limits.js";
import { checkAgentAction } from "./check-agent-action.js";
import { actionFunctionName, isReservedWord } from "./function-name.js";
import { compareManifestErrors, formatManifestError, type ManifestError } from "./manifest-error.js";
import { fieldError } from "./manifest-file.js";
import type { ManifestSet } from "./manifest-set.js";
import { parseManifestFile, type ParsedManifest } from "./parse-manifest-file.js";
import { ActionManifest } from "./schema.js";

export interface AgentManifestCheck {
  set?: ManifestSet; // the trusted set with the agent actions beside it; present exactly when errors is empty
  errors: ManifestError[]; // `file` is the name the manifest was submitted under
}

/**
 * Check the action manifests an agent submitted with its program against the trusted set: each
 * file's schema and the shipped manifests' rules, the rules of checkAgentAction, and names that
 * neither repeat nor look like a trusted action's. Every problem is reported together; nothing
 * the agent sends can make this throw.
 */
export function checkAgentManifests(
  trusted: ManifestSet,
  sources: readonly AgentManifestSource[],
  allowlists: Allowlists = declaredAllowlists(trusted),
): AgentManifestCheck {
  if (sources.length > AGENT_LIMITS.manifests) {
    return {
      errors: [
        {
          file: ".",
          field: "",
          message: `${sources.length} agent manifests, more than the ${AGENT_LIMITS.manifests} a program may submit`,
        },
      ],
    };
  }
  const errors: ManifestError[] = [];
  const files = new Set<string>();
  const parsed: ParsedManifest<ActionManifest>[] = [];
  for (const { name, text } of sources) {
    if (files.has(name)) errors.push({ file: name, field: "", message: "submitted twice" });
    files.add(name);
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes > AGENT_LIMITS.bytes)
      errors.push({
        file: name,
        field: "",
        message: `is ${bytes} bytes, more than the ${AGENT_LIMITS.bytes} an agent manifest may take`,
      });
    else parsed.push(parseManifestFile({ rel: name, path: name, text }, ActionManifest));
  }
  return checkParsed(trusted, parsed, errors, allowlists);
}

/**
 * Check agent manifests again from the canonical text a request keeps (agentManifestsText), by
 * the same rules as when they were submitted: the set to preview and show them with. The text is
 * the store's, already hashed against the request's facts; a text that is not that form is an
 * error here too, never a throw.
 */
export function checkStoredAgentManifests(
  trusted: ManifestSet,
  text: string,
  allowlists: Allowlists = declaredAllowlists(trusted),
): AgentManifestCheck {
  const parsed = parseStored(text);
  if (parsed === undefined)
    return {
      errors: [{ file: ".", field: "", message: "the stored agent manifests are not in their canonical form" }],
    };
  return checkParsed(trusted, parsed, [], allowlists);
}

/**
 * The manifests of a canonical text, as the agent submitted them (descriptions are its words); undefined when it is not
 * that form.
 */
export function storedAgentManifests(text: string): ActionManifest[] | undefined {
  const parsed = parseStored(text);
  if (parsed === undefined || parsed.some((p) => p.data === undefined)) return undefined;
  return parsed.map((p) => p.data!);
}

/**
 * The `[name, manifest]` pairs of a canonical text, each through the schema (which fills nothing new: defaults are in
 * it).
 */
function parseStored(text: string): ParsedManifest<ActionManifest>[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const pairs =
    Array.isArray(value) &&
    value.length > 0 &&
    value.length <= AGENT_LIMITS.manifests &&
    value.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === "string");
  if (!pairs) return undefined;
  return (value as [string, unknown][]).map(([name, manifest]) => {
    const file = { rel: `${name}.toml`, path: `${name}.toml`, lines: new Map() };
    const result = ActionManifest.safeParse(manifest);
    if (result.success) return { file, data: result.data, errors: [] };
    return {
      file,
      errors: result.error.issues.map((issue) =>
        fieldError(
          file,
          issue.path.map((p) => (typeof p === "number" ? p : String(p))),
          issue.message,
        ),
      ),
    };
  });
}

function checkParsed(
  trusted: ManifestSet,
  parsed: readonly ParsedManifest<ActionManifest>[],
  errors: ManifestError[],
  allowlists: Allowlists,
): AgentManifestCheck {
  if (trusted.connectors.has(AGENT_CONNECTOR)) {
    errors.push({
      file: ".",
      field: "",
      message: `the trusted manifests have a connector named ${AGENT_CONNECTOR}, the namespace of agent actions: agent actions cannot be used with them`,
    });
  }
  const trustedNames = new Map<string, string>(); // action name and function name -> trusted op
  for (const action of trusted.actions.values()) {
    trustedNames.set(action.name, action.op);
    trustedNames.set(actionFunctionName(action.name), action.op);
  }
  const byFunction = new Map<string, ParsedManifest<ActionManifest>>();
  const valid: ParsedManifest<ActionManifest>[] = [];
  for (const manifest of parsed) {
    errors.push(...manifest.errors);
    if (manifest.data === undefined) continue;
    const { name } = manifest.data;
    const fn = actionFunctionName(name);
    const same = byFunction.get(fn);
    const like = trustedNames.get(name) ?? trustedNames.get(fn);
    // A second action under one function name is set aside (its twin's checks stand for it); a bad name alone does not
    // stop the other checks.
    if (same !== undefined) {
      errors.push(
        fieldError(
          manifest.file,
          ["name"],
          `"${name}" and "${same.data!.name}" (${same.file.rel}) both become agent.${fn}`,
        ),
      );
      continue;
    }
    if (like !== undefined)
      errors.push(
        fieldError(
          manifest.file,
          ["name"],
          `"${name}" is named like the trusted action ${like}: an agent action needs a name of its own`,
        ),
      );
    else if (isReservedWord(fn))
      errors.push(fieldError(manifest.file, ["name"], `"${name}" would export the reserved word ${fn}`));
    byFunction.set(fn, manifest);
    valid.push(manifest);
  }

  const actions = new Map<string, AgentAction>();
  for (const { file, data } of valid) {
    const manifest = data!;
    const checked = checkAgentAction(file, manifest, trusted, allowlists);
    errors.push(...checked.errors);
    const op = `${AGENT_CONNECTOR}.${manifest.name}`;
    actions.set(op, {
      op,
      connector: AGENT_CONNECTOR,
      name: manifest.name,
      file: file.rel,
      manifest,
      templates: checked.templates,
      steps: checked.steps,
      previewOp: checked.previewOp,
    });
  }
  errors.sort(compareManifestErrors);
  if (errors.length > 0) return { errors };
  const sorted = new Map([...actions].sort(([a], [b]) => (a < b ? -1 : 1)));
  const text = agentManifestsText([...sorted.values()].map((a) => a.manifest));
  return { set: { ...trusted, agent: { sha256: sha256Hex(text), text, actions: sorted, allowlists } }, errors };
}

/**
 * The identity of a set of agent actions: sha256 over their canonical text. File names, comments
 * and key order do not change it; any change to what an action does does.
 */
export function agentManifestsHash(manifests: readonly ActionManifest[]): string {
  return sha256Hex(agentManifestsText(manifests));
}

/**
 * The canonical text of a set of agent actions: the canonical JSON of `[name, manifest]` pairs
 * (as parsed, defaults filled), by name. A request keeps this text; its sha256 is what the facts
 * and the receipt bind.
 */
export function agentManifestsText(manifests: readonly ActionManifest[]): string {
  const value = [...manifests].sort((a, b) => (a.name < b.name ? -1 : 1)).map((m) => [m.name, m]);
  return canonicalJson(JSON.parse(JSON.stringify(value)) as Json);
}

const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

/** The allowlists the connector manifests declare (a connector that leaves them to the user has none). */
export function declaredAllowlists(trusted: ManifestSet): Allowlists {
  const hosts: Record<string, readonly string[]> = {};
  const roots: Record<string, readonly string[]> = {};
  for (const [name, { manifest }] of trusted.connectors) {
    const declaredHosts = manifest.capabilities.network?.hosts ?? [];
    if (declaredHosts.length > 0) hosts[name] = declaredHosts;
    const declaredRoots = manifest.capabilities.fs?.roots ?? [];
    if (declaredRoots.length > 0) roots[name] = declaredRoots;
  }
  return { hosts, roots };
}

/** The error for agent manifests with problems: analysis_rejected (the agent's input), every problem listed. */
export function agentManifestsError(errors: readonly ManifestError[]): CountersignError {
  const lines = errors.map((error) => `  ${formatManifestError(error)}`);
  const count = errors.length === 1 ? "1 error" : `${errors.length} errors`;
  return new CountersignError(
    "analysis_rejected",
    "manifest",
    `invalid agent manifests (${count}):\n${lines.join("\n")}`,
    {
      details: { reason: "invalid_agent_manifests", errors },
    },
  );
}
