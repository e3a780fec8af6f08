import type { Provenance, ValueConstraint, Verdict3 } from "../model/index.js";
import { jsonEqual } from "./canonical-json.js";
import { matchOp } from "./match-op.js";

/**
 * The provenance conditions (docs/architecture.md section 6): `{ untrusted: true }` — the value may
 * derive from data of the outside world; `{ untrusted: false }` — it never does; `{ from: [ops] }`
 * — it derives from a result of one of these ops (globs as in rules). Only the analysis knows where
 * a value came from, so they are decided statically, from the sources of the whole value (a part's
 * sources are among the whole's, so reading them for a part nested in `fields`, `elements` or `at`
 * is sound), and never reach a run-time check: a guard gets them replaced first (`withoutSources`).
 * Never `yes` for "derives from": only "never derives from" can be proven.
 */
export type SourceCondition = { untrusted: boolean } | { from: string[] };

/** Holds of everything; holds of nothing (but the empty list, as every element-wise condition). */
const TRUE: ValueConstraint = { all: [] };
const FALSE: ValueConstraint = { not: { all: [] } };
/** More provenance conditions in one constraint than this are not enumerated: maybe. */
const MAX_OPEN = 6;

export function isSourceCondition(c: ValueConstraint): c is ValueConstraint & SourceCondition {
  return "untrusted" in c || "from" in c;
}

export function mentionsSources(c: ValueConstraint): boolean {
  if (isSourceCondition(c)) return true;
  if ("all" in c) return c.all.some(mentionsSources);
  if ("any" in c) return c.any.some(mentionsSources);
  if ("not" in c) return mentionsSources(c.not);
  if ("elements" in c) return mentionsSources(c.elements);
  if ("fields" in c) return Object.values(c.fields).some(mentionsSources);
  if ("json" in c) return mentionsSources(c.json);
  if ("at" in c) return mentionsSources(c.at.is);
  return false;
}

/** A source of unknown origin that is untrusted may be any op's result. */
export function mayBeFrom(sources: readonly Provenance[], ops: readonly string[]): boolean {
  return sources.some((s) => (s.op === undefined ? s.untrusted : ops.some((pattern) => matchOp(pattern, s.op!))));
}

export function sourceVerdict(c: SourceCondition, sources: readonly Provenance[]): Verdict3 {
  if ("from" in c) return mayBeFrom(sources, c.from) ? "maybe" : "no";
  const untrusted = sources.some((s) => s.untrusted);
  if (untrusted) return "maybe";
  return c.untrusted ? "no" : "yes";
}

/**
 * `c` with each provenance condition replaced: by TRUE or FALSE where `sources` decide it, and
 * by `open(condition, positive)` where they do not (`positive`: not under an odd number of `not`s).
 */
function replaced(
  c: ValueConstraint,
  sources: readonly Provenance[],
  open: (atom: SourceCondition, positive: boolean) => ValueConstraint,
  positive = true,
): ValueConstraint {
  if (isSourceCondition(c)) {
    const verdict = sourceVerdict(c, sources);
    return verdict === "yes" ? TRUE : verdict === "no" ? FALSE : open(c, positive);
  }
  if ("all" in c)
    return simplified(
      "all",
      c.all.map((p) => replaced(p, sources, open, positive)),
      TRUE,
    );
  if ("any" in c)
    return simplified(
      "any",
      c.any.map((p) => replaced(p, sources, open, positive)),
      FALSE,
    );
  if ("not" in c) return { not: replaced(c.not, sources, open, !positive) };
  if ("elements" in c) return { elements: replaced(c.elements, sources, open, positive) };
  if ("fields" in c)
    return {
      fields: Object.fromEntries(Object.entries(c.fields).map(([k, f]) => [k, replaced(f, sources, open, positive)])),
    };
  if ("json" in c) return { json: replaced(c.json, sources, open, positive) };
  if ("at" in c) return { at: { path: c.at.path, is: replaced(c.at.is, sources, open, positive) } };
  return c;
}

/**
 * `all` without its TRUE parts, `any` without its FALSE ones (neither changes what they hold of), and one part alone as
 * itself.
 */
function simplified(key: "all" | "any", parts: ValueConstraint[], neutral: ValueConstraint): ValueConstraint {
  const kept = parts.filter((p) => !jsonEqual(p, neutral));
  if (kept.length === 1) return kept[0]!;
  if (kept.length === 0) return neutral;
  return key === "all" ? { all: kept } : { any: kept };
}

/**
 * Every way the undecided provenance conditions of `c` may come out, as constraints without them
 * (undefined when there are too many to enumerate). Each concrete value meets the conditions one
 * of these ways, so a verdict shared by all of them is the verdict of `c`.
 */
export function resolutions(c: ValueConstraint, sources: readonly Provenance[]): ValueConstraint[] | undefined {
  const open: SourceCondition[] = [];
  replaced(c, sources, (atom) => {
    if (!open.some((o) => jsonEqual(o, atom))) open.push(atom);
    return TRUE;
  });
  if (open.length > MAX_OPEN) return undefined;
  const out: ValueConstraint[] = [];
  for (let mask = 0; mask < 1 << open.length; mask++) {
    out.push(replaced(c, sources, (atom) => (mask & (1 << open.findIndex((o) => jsonEqual(o, atom))) ? TRUE : FALSE)));
  }
  return out;
}

/**
 * Whether `c`'s only way (resolutions) is `c` itself, member for member: it has no provenance
 * condition, and no `all` or `any` that `simplified` would change (a neutral part, a lone part,
 * an empty `any`). Then a verdict on `c` needs no resolving. A walk without allocation.
 */
export function resolvesToItself(c: ValueConstraint): boolean {
  if (isSourceCondition(c)) return false;
  if ("all" in c) return c.all.length !== 1 && c.all.every((p) => !jsonEqual(p, TRUE) && resolvesToItself(p));
  if ("any" in c) return c.any.length > 1 && c.any.every((p) => !jsonEqual(p, FALSE) && resolvesToItself(p));
  if ("not" in c) return resolvesToItself(c.not);
  if ("elements" in c) return resolvesToItself(c.elements);
  if ("fields" in c) return Object.values(c.fields).every(resolvesToItself);
  if ("json" in c) return resolvesToItself(c.json);
  if ("at" in c) return resolvesToItself(c.at.is);
  return true;
}

/**
 * A constraint a run can check in place of `c`: each undecided provenance condition replaced so
 * that the result holds of at least every value `c` holds of (TRUE where it counts positively,
 * FALSE under a `not`). A deny rule's guard is the negation of this: it refuses at least every
 * call the rule could deny.
 */
export function withoutSources(c: ValueConstraint, sources: readonly Provenance[]): ValueConstraint {
  return replaced(c, sources, (_atom, positive) => (positive ? TRUE : FALSE));
}
