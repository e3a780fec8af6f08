import type { AbstractValue, CountRange, Effect, Provenance } from "../model/index.js";

/**
 * What the analysis knows about a value, as a short noun phrase: `"x"`, `one of "a", "b"`,
 * `a string starting "/home" (from loop variable)`, `any string`, `a list of 1..3 items, each
 * "a@x.com"`, `{ to: ... }`, `unknown (from the result of email.get_draft — untrusted)`. The one
 * description of abstract values, for the facts (`check`) and for decisions alike.
 */
export function describeValue(v: AbstractValue): string {
  switch (v.kind) {
    case "const":
      return v.values.length === 1
        ? JSON.stringify(v.values[0])
        : `one of ${v.values.map((x) => JSON.stringify(x)).join(", ")}`;
    case "string": {
      const known = [
        v.prefix === "" ? "" : `starting ${JSON.stringify(v.prefix)}`,
        v.suffix === "" ? "" : `ending ${JSON.stringify(v.suffix)}`,
      ];
      const shape = known.filter(Boolean).join(" and ");
      return `${shape === "" ? "any string" : `a string ${shape}`}${from(v.provenance)}`;
    }
    case "array":
      return `a list of ${describeCount(v.length)} item${v.length.min === 1 && v.length.max === 1 ? "" : "s"}, each ${describeValue(v.element)}`;
    case "record":
      return `{ ${Object.entries(v.fields)
        .map(([k, f]) => `${k}: ${describeValue(f)}`)
        .join(", ")} }`;
    case "unknown":
      return `unknown${from(v.provenance)}`;
  }
}

/** The same as a predicate after an argument's name: `= "x"` for one constant, `is ...` otherwise. */
export function describeArgument(v: AbstractValue): string {
  return v.kind === "const" && v.values.length === 1 ? `= ${JSON.stringify(v.values[0])}` : `is ${describeValue(v)}`;
}

/** A count or length range: `2`, `0..3`, `1 or more`. */
export function describeCount(range: CountRange): string {
  if (range.max === null) return `${range.min} or more`;
  return range.min === range.max ? `${range.min}` : `${range.min}..${range.max}`;
}

/** A number of calls in words: "1 call", "0..3 calls", "1 or more calls". */
export function describeCallCount(range: CountRange): string {
  return `${describeCount(range)} call${range.min === 1 && range.max === 1 ? "" : "s"}`;
}

function from(provenance: readonly Provenance[]): string {
  return provenance.length === 0 ? "" : ` (from ${describeSources(provenance, "")})`;
}

/** The program's trusted calls: a source that is an op's result names what those calls read (`id = "r-1"`). */
export type SourceCalls = readonly Pick<Effect, "op" | "args">[];

/** How the analyzer names a source read by one step of an agent action. */
const STEP = /^result of (\S+), a step of (agent\.\S+)$/;
/** Beyond this, a call's arguments are cut short: they say which call it was, not all it sends. */
const MAX_READS_CHARS = 80;
const MAX_READS = 3;

/**
 * Where a value comes from, for a person deciding — the one wording of a source list, on every
 * surface (`policy explain`, the approval page, the terminal approver) and inside values:
 * `the result of email.get_draft (id = "r-1") — untrusted; loop variable`, or `none` when it has
 * no source at all; a part of a result is named (`the result of http.get (…), field $.body.iban`),
 * and so is the policy entry that vouched for a source. Untrusted sources come first; an agent action's result is one
 * entry naming
 * the ops its steps call (it returns its last step's output, which may hold any earlier one's).
 */
export function describeSources(sources: readonly Provenance[], none: string, calls: SourceCalls = []): string {
  if (sources.length === 0) return none;
  const agentActions = new Set(sources.flatMap((p) => (p.op?.startsWith("agent.") === true ? [p.op] : [])));
  const steps = new Map<string, Set<string>>(); // agent action → the ops its steps call
  const listed: Provenance[] = [];
  // agent actions with an untrusted step folded in: the action's entry carries the mark
  const untrusted = new Set<string>();
  for (const p of sources) {
    const step = STEP.exec(p.source);
    if (step === null || !agentActions.has(step[2]!)) {
      listed.push(p);
      continue;
    }
    steps.set(step[2]!, (steps.get(step[2]!) ?? new Set()).add(step[1]!));
    if (p.untrusted) untrusted.add(step[2]!);
  }
  const marked = listed.map((p) => ({ p, untrusted: p.untrusted || (p.op !== undefined && untrusted.has(p.op)) }));
  const ordered = [...marked.filter((m) => m.untrusted), ...marked.filter((m) => !m.untrusted)];
  return [
    ...new Set(
      ordered.map(
        (m) =>
          `${describeSource(m.p, steps, calls)}${m.untrusted ? " — untrusted" : m.p.trustedBy === undefined ? "" : ` — trusted by the policy's ${m.p.trustedBy}`}`,
      ),
    ),
  ].join("; ");
}

/**
 * What steers a call (its `influencedBy`), or null when nothing does: whether it runs, how often
 * and which of the program's values it passes may depend on the data it branched, looped or
 * chose on. Undefined (an effect the analyzer did not build) is not known, and said so.
 */
export function describeInfluence(
  influencedBy: readonly Provenance[] | undefined,
  calls: SourceCalls = [],
): string | null {
  if (influencedBy === undefined)
    return "not known: take whether it runs, how often and with which values as steered by untrusted data";
  if (influencedBy.length === 0) return null;
  return `whether it runs, how often and with which values may depend on ${describeSources(influencedBy, "", calls)}`;
}

/**
 * How a value the agent was given by an earlier run and pasted into this program is named (src/given): it says which
 * run, in its own words.
 */
const PASTED = / pasted from .+ in request \S+$/;

function describeSource(p: Provenance, steps: ReadonlyMap<string, ReadonlySet<string>>, calls: SourceCalls): string {
  if (p.op === undefined || PASTED.test(p.source)) return p.source;
  const read = steps.get(p.op);
  const through =
    read === undefined
      ? ""
      : `, which may hold what its steps got back: ${[...read].map((op) => `${op}${reads(op, calls)}`).join(", ")}`;
  const field = p.path === undefined || p.path === "$" ? "" : `, field ${p.path}`;
  return `the result of ${p.op}${reads(p.op, calls)}${field}${through}`;
}

/** ` (id = "r-1")`: what the program's calls of `op` read, a few of them; empty when none is known. */
function reads(op: string, calls: SourceCalls): string {
  const each = new Set(
    calls
      .filter((c) => c.op === op)
      .map((c) =>
        Object.entries(c.args)
          .map(([name, v]) => `${name} ${describeArgument(v)}`)
          .join(", "),
      )
      .filter((text) => text !== "")
      .map((text) => (text.length > MAX_READS_CHARS ? `${text.slice(0, MAX_READS_CHARS - 1)}…` : text)),
  );
  if (each.size === 0) return "";
  return ` (${[...each].slice(0, MAX_READS).join(" or ")}${each.size > MAX_READS ? " or …" : ""})`;
}
