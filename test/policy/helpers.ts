import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadManifests } from "../../src/config/index.js";
import type { ManifestSet } from "../../src/manifest/manifest-set.js";
import type { AbstractValue, CountRange } from "../../src/model/abstract.js";
import type { EffectConstraint } from "../../src/model/constraint.js";
import type { Json } from "../../src/model/json.js";
import type { Effect, Facts, GuaranteeStatus } from "../../src/model/facts.js";
import { packageRoot } from "../../src/model/paths.js";
import { loadPolicy } from "../../src/config/index.js";
import type { Policy } from "../../src/policy/schema.js";

export const HOME = "/home/me";

/** The shipped manifests, loaded once. */
let shipped: ManifestSet | undefined;
export function shippedManifests(): ManifestSet {
  shipped ??= loadManifests(join(packageRoot, "manifests"));
  return shipped;
}

/** A fresh temp folder holding the given policy files. */
export function policyDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "countersign-policy-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

export function policyOf(text: string, set: ManifestSet = shippedManifests()): Policy {
  return loadPolicy(policyDir({ "policy.toml": text }), { manifests: set, home: HOME });
}

export const val = (...values: Json[]): AbstractValue => ({ kind: "const", values });
export const unknown = (source = "result of email.get_draft", untrusted = true): AbstractValue => ({
  kind: "unknown",
  provenance: [{ source, untrusted }],
});
export const str = (prefix: string, suffix = ""): AbstractValue => ({
  kind: "string",
  prefix,
  suffix,
  provenance: [{ source: "template", untrusted: true }],
});
export const list = (element: AbstractValue, min = 1, max: number | null = min): AbstractValue => ({
  kind: "array",
  element,
  length: { min, max },
});

let line = 0;
export function effect(
  op: string,
  args: Record<string, AbstractValue>,
  count: CountRange = { min: 1, max: 1 },
): Effect {
  const [connector, action] = op.split(".") as [string, string];
  return { op, connector, action, site: { line: ++line, column: 5 }, args, count };
}

export const mail = (to: AbstractValue, extra: Record<string, AbstractValue> = {}, count?: CountRange): Effect =>
  effect("email.send_email", { to, subject: val("Hi"), body: val("Hello"), ...extra }, count);

export function facts(effects: Effect[], guarantees: [EffectConstraint, GuaranteeStatus][] = []): Facts {
  return {
    program: { sha256: "ab".repeat(32), entry: "main.ts" },
    ok: true,
    diagnostics: [],
    effects,
    guarantees: guarantees.map(([source, status]) => ({ source, text: JSON.stringify(source), status, why: status })),
    summary: [],
    rationale: "test",
  };
}
