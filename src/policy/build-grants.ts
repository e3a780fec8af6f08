import { canonicalJson, constraintOf, implies, jsonEqual, matchOp } from "../constraint/index.js";
import { absentInput, type EffectOptions } from "../constraint/index.js";
import type { AbstractValue } from "../model/index.js";
import type { EffectConstraint, ValueConstraint } from "../model/index.js";
import type { CrossOpLimit, Grant } from "../model/index.js";
import { CountersignError } from "../model/index.js";
import type { Effect } from "../model/index.js";
import type { Json } from "../model/index.js";
import type { ManifestSet } from "../manifest/index.js";
import { knownFor } from "./known-for.js";
import { manifestView } from "./manifest-view.js";
import { totalCount } from "./narrow-effect.js";

export interface Grants {
  grants: Grant[];
  across: CrossOpLimit[];
}

/**
 * The receipt's permissions (docs/architecture.md section 8): the facts themselves, intersected with what
 * the decision relied on (`known`: guarantees, guards, the bounds of the allow rules that
 * decided), so that a run can never leave what was approved — an analysis mistake becomes a
 * refused call, never an effect nobody approved. `effects` are already typed and narrowed.
 *
 * Per op, one grant: for every input the action declares (the wrapper passes each, null when
 * left out), the union of its call sites' values as a constraint (constraintOf; unconstrained
 * only where the facts say unknown), with each known constraint on that input the facts do not
 * already imply; and a count, the sum of the sites' maxima capped by known bounds (null only when
 * the facts say unbounded). A known constraint about an input the op does not have never lands on
 * it: a read-only op is not concerned (e.g. recipientsOnly and email.get_draft), and an op with
 * effects cannot be checked, so its grant allows no call (absentInput) — unless the wrapper
 * resolves that input before each call (`[resolve]`, e.g. the `to` of email.send_draft): then the
 * known constraints land on it as on a declared input, the facts saying nothing about it.
 *
 * Count and distinct bounds that cover several granted ops get one ledger across them (`across`);
 * a count the grants' own counts already keep is left out, one on a single op caps its count.
 */
export function buildGrants(effects: readonly Effect[], known: readonly EffectConstraint[], set: ManifestSet): Grants {
  const opts = manifestView(set).options;
  const grants = [...new Set(effects.map((e) => e.op))].map((op) => grantFor(op, effects, known, set, opts));
  const across: CrossOpLimit[] = [];
  for (const k of known) {
    const selected = grants.filter((g) => matchOp(k.op, g.op) && g.count.max !== 0);
    if (k.count !== undefined && selected.length > 1 && !withinCounts(selected, k.count.max))
      across.push({ ops: selected.map((g) => g.op), count: k.count });
    const input = k.distinct;
    if (input === undefined) continue;
    const holders = selected.filter((g) => ["null", "resolved"].includes(absentInput(g.op, input, opts)));
    if (holders.length === 1 && holders[0]!.distinct === undefined) holders[0]!.distinct = input;
    else if (holders.length > 0) across.push({ ops: holders.map((g) => g.op), distinct: input });
  }
  return {
    grants,
    across:
      across.length <= 1 ? across : [...new Map(across.map((l) => [canonicalJson(l as unknown as Json), l])).values()],
  };
}

function grantFor(
  op: string,
  effects: readonly Effect[],
  known: readonly EffectConstraint[],
  set: ManifestSet,
  opts: EffectOptions,
): Grant {
  const action = set.actions.get(op);
  const connector = action === undefined ? undefined : set.connectors.get(action.connector);
  if (action === undefined || connector === undefined) {
    throw new CountersignError("config_error", "policy", `no action or connector manifest for ${op}`, {
      details: { op },
    });
  }
  const applying = known.filter((k) => matchOp(k.op, op));
  const refused = applying.some(
    (k) =>
      (k.args !== undefined && Object.keys(k.args).some((input) => absentInput(op, input, opts) === "unchecked")) ||
      (k.distinct !== undefined && absentInput(op, k.distinct, opts) === "unchecked"),
  );
  const args: Record<string, ValueConstraint> = {};
  const facts = factsConstraints(effects, op, action.manifest.inputs);
  for (const input of action.manifest.inputs) {
    const constraint = intersect(facts.get(input.name), knownFor(input.name, applying));
    if (constraint !== undefined) args[input.name] = constraint;
  }
  for (const input of opts.resolvedOf?.(op) ?? []) {
    const constraint = intersect(undefined, knownFor(input, applying));
    if (constraint !== undefined) args[input] = constraint;
  }
  return {
    op,
    connector: { name: connector.name, sha256: connector.manifest.sha256 },
    args,
    count: { max: refused ? 0 : totalCount(effects, op, known).max },
  };
}

// A declared input the program does not pass reaches the connector as null (the wrapper fills it in).
const NULL: AbstractValue = { kind: "const", values: [null] };

// Per effects array (never changed once built: a repeated program's facts, typed and narrowed by
// its guarantees, are one array for all its decisions), each op's inputs as its facts constrain them.
const byEffects = new WeakMap<readonly Effect[], Map<string, ReadonlyMap<string, ValueConstraint | undefined>>>();

/**
 * Per declared input of `op`, the union of the values its calls pass (constraintOf), undefined
 * where a value is unknown. Frozen: grants of several decisions hold them.
 */
function factsConstraints(
  effects: readonly Effect[],
  op: string,
  inputs: readonly { name: string }[],
): ReadonlyMap<string, ValueConstraint | undefined> {
  let perOp = byEffects.get(effects);
  if (perOp === undefined) byEffects.set(effects, (perOp = new Map()));
  let kept = perOp.get(op);
  if (kept === undefined) {
    const members = effects.filter((e) => e.op === op);
    const constraints = new Map<string, ValueConstraint | undefined>();
    for (const { name } of inputs) {
      const constraint = constraintOf(members.map((e) => (Object.hasOwn(e.args, name) ? e.args[name]! : NULL)));
      constraints.set(name, constraint === undefined ? undefined : frozen(constraint));
    }
    perOp.set(op, (kept = constraints));
  }
  return kept;
}

/**
 * The constraint frozen with its parts and operand lists, not the operands' own members: objects
 * among them belong to the facts (constraintOf keeps them), which are the facts' to keep.
 */
function frozen(c: ValueConstraint): ValueConstraint {
  for (const [key, member] of Object.entries(c)) {
    if (key === "all" || key === "any") (member as ValueConstraint[]).forEach(frozen);
    else if (key === "not" || key === "elements") frozen(member as ValueConstraint);
    else if (key === "fields") Object.values(Object.freeze(member as Record<string, ValueConstraint>)).forEach(frozen);
    // lists constraintOf made
    if (key === "all" || key === "any" || key === "in" || key === "type") Object.freeze(member);
  }
  return Object.freeze(c);
}

/** The facts' constraint and every known one they do not already imply, once each. */
function intersect(facts: ValueConstraint | undefined, known: readonly ValueConstraint[]): ValueConstraint | undefined {
  if (known.length === 0) return facts;
  const parts: ValueConstraint[] = [];
  for (const c of facts === undefined ? known : [facts, ...known]) {
    if (parts.some((p) => jsonEqual(p as Json, c as Json)) || (facts !== undefined && c !== facts && implies(facts, c)))
      continue;
    parts.push(c);
  }
  return parts.length <= 1 ? parts[0] : { all: parts };
}

// The grants' own counts already keep the bound when they sum to at most it.
function withinCounts(grants: readonly Grant[], max: number): boolean {
  let sum = 0;
  for (const g of grants) {
    if (g.count.max === null) return false;
    sum += g.count.max;
  }
  return sum <= max;
}
