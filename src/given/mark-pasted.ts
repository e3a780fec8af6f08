import { mergeProvenance } from "../constraint/index.js";
import type { AbstractValue, Effect, Facts, GivenContext, GivenText, Json, Provenance } from "../model/index.js";
import { givenKeys, MIN_WHOLE, type GivenKeys } from "./given-keys.js";
import { normalizeMailbox, normalizeText } from "./normalize.js";
import { programLiterals } from "./program-literals.js";

/**
 * A literal that shares this many characters in a row with a given text was copied from it (a sentence, not a word).
 */
export const COPIED_RUN = 32;
/**
 * A literal is searched for windows starting every WINDOW_STEP characters, each as long as
 * needed for every shared run of COPIED_RUN to hold one: an eighth of the searches of every start.
 */
const WINDOW_STEP = 8;
const WINDOW = COPIED_RUN - WINDOW_STEP + 1;

export interface MarkOptions {
  /** Addresses that name the user (connections.toml): finding them in a given text says nothing of who wrote it. */
  ownAddresses?: readonly string[];
}

/**
 * Facts as the policy must read them for an agent that was given `given` by its earlier runs:
 * every literal the program passes (a constant, or the known beginning or end of a string) that
 * matches an untrusted text the agent was given carries that text's provenance — `from` its ops,
 * untrusted, "pasted from the result of <op> in request <id>" — in the arguments, their sources
 * and any agent action's own arguments; a value the program's text holds anywhere — as written,
 * in its literals joined in order or reversed, or spelled by its numbers (programLiterals): pieces
 * the analysis does not see reach a call, a disguise — steers every call, as data branched on does; and `context` says
 * what the agent had been given. Pure.
 *
 * A literal matches a given text when, both normalized (normalizeText): it is the whole text; it
 * holds one of the text's tokens (givenKeys); it names the same mailbox as an address in the text;
 * or it shares COPIED_RUN characters in a row with the text.
 */
export function markPasted(
  facts: Facts,
  programTexts: readonly string[],
  given: readonly GivenText[],
  options: MarkOptions = {},
): Facts {
  const context = contextOf(given);
  if (given.length === 0 || !facts.ok) return { ...facts, context };
  const ignored = new Set((options.ownAddresses ?? []).map(normalizeMailbox));
  const keys = given.map((g) => keysOf(g, ignored));
  const matcher = new PieceMatcher(keys, ignored);
  const inText = programTexts.flatMap(searchedTexts);
  const steering = keys
    .filter((k) => k.tokens.some((t) => inText.some((p) => p.includes(t))))
    .map((k) => pastedFrom(k.given, "the program's text holds a value"));
  const effects = facts.effects.map((effect) => markEffect(effect, matcher, steering));
  return { ...facts, effects, context };
}

// A given text's keys, kept with it: the store hands out the same objects for a row on every read.
const keysKept = new WeakMap<GivenText, { ignored: string; keys: GivenKeys }>();

function keysOf(given: GivenText, ignored: ReadonlySet<string>): GivenKeys {
  const tag = [...ignored].join("\n");
  const kept = keysKept.get(given);
  if (kept !== undefined && kept.ignored === tag) return kept.keys;
  const keys = givenKeys(given, ignored);
  keysKept.set(given, { ignored: tag, keys });
  return keys;
}

/**
 * A program text as it is searched for a value: as written, its literals joined (and reversed), and the characters its
 * numbers spell.
 */
export function searchedTexts(text: string): string[] {
  const { strings, codes } = programLiterals(text);
  const joined = normalizeText(strings);
  return [normalizeText(text), joined, [...joined].reverse().join(""), normalizeText(codes)];
}

/** What an agent was given, in short: whether any of it was untrusted, from which ops, by which runs. */
export function contextOf(given: readonly GivenText[]): GivenContext {
  return {
    untrusted: given.length > 0,
    from: [...new Set(given.flatMap((g) => g.from))].sort(),
    requests: [...new Set(given.map((g) => g.request))].sort(),
  };
}

function markEffect(effect: Effect, matcher: PieceMatcher, steering: readonly Provenance[]): Effect {
  const args: Record<string, AbstractValue> = {};
  const sources: Record<string, Provenance[]> = { ...(effect.sources ?? {}) };
  let changed = false;
  for (const [name, value] of Object.entries(effect.args)) {
    const marked = matcher.mark(value);
    args[name] = marked.value;
    if (marked.pasted.length > 0) {
      changed = true;
      sources[name] = mergeProvenance([effect.sources?.[name] ?? [], marked.pasted]);
    }
  }
  const agentAction =
    effect.agentAction?.args === undefined
      ? effect.agentAction
      : {
          ...effect.agentAction,
          args: Object.fromEntries(Object.entries(effect.agentAction.args).map(([k, v]) => [k, matcher.mark(v).value])),
        };
  if (!changed && steering.length === 0 && agentAction === effect.agentAction) return effect;
  return {
    ...effect,
    args,
    ...(agentAction === undefined ? {} : { agentAction }),
    ...(effect.sources === undefined && !changed ? {} : { sources }),
    ...(steering.length === 0 ? {} : { influencedBy: mergeProvenance([effect.influencedBy ?? [], [...steering]]) }),
  };
}

function pastedFrom(given: GivenText, how: string): Provenance {
  const ops = given.from.length === 0 ? "an earlier run" : `the result of ${given.from.join(", ")}`;
  // One op names it where there is one; several (or none) leave it of unknown origin, which a `from` condition reads as
  // any op.
  return {
    source: `${how} pasted from ${ops} in request ${given.request}`,
    untrusted: true,
    ...(given.from.length === 1 ? { op: given.from[0]! } : {}),
  };
}

/** Matches the literal pieces of abstract values against the given texts, each piece once. */
class PieceMatcher {
  readonly #keys: readonly GivenKeys[];
  readonly #ignored: ReadonlySet<string>;
  readonly #seen = new Map<string, Provenance[]>();

  constructor(keys: readonly GivenKeys[], ignored: ReadonlySet<string>) {
    this.#keys = keys;
    this.#ignored = ignored;
  }

  /** `value` with its pasted pieces marked, and the provenance they add. */
  mark(value: AbstractValue): { value: AbstractValue; pasted: Provenance[] } {
    switch (value.kind) {
      case "const": {
        const pasted = mergeProvenance(value.values.map((v) => this.#ofJson(v)));
        return pasted.length === 0
          ? { value, pasted }
          : { value: { ...value, provenance: mergeProvenance([value.provenance ?? [], pasted]) }, pasted };
      }
      case "string": {
        const pasted = mergeProvenance([this.#ofPiece(value.prefix), this.#ofPiece(value.suffix)]);
        return pasted.length === 0
          ? { value, pasted }
          : { value: { ...value, provenance: mergeProvenance([value.provenance, pasted]) }, pasted };
      }
      case "array": {
        const element = this.mark(value.element);
        return element.pasted.length === 0
          ? { value, pasted: [] }
          : { value: { ...value, element: element.value }, pasted: element.pasted };
      }
      case "record": {
        const fields: Record<string, AbstractValue> = {};
        const found: Provenance[][] = [];
        for (const [k, v] of Object.entries(value.fields)) {
          const m = this.mark(v);
          fields[k] = m.value;
          found.push(m.pasted);
        }
        const pasted = mergeProvenance(found);
        return pasted.length === 0 ? { value, pasted } : { value: { kind: "record", fields }, pasted };
      }
      case "unknown":
        return { value, pasted: [] };
    }
  }

  #ofJson(value: Json): Provenance[] {
    if (typeof value === "string") return this.#ofPiece(value);
    if (typeof value === "number") return this.#ofPiece(String(value));
    if (Array.isArray(value)) return mergeProvenance(value.map((v) => this.#ofJson(v)));
    if (value !== null && typeof value === "object")
      return mergeProvenance(
        Object.entries(value).map(([k, v]) => mergeProvenance([this.#ofPiece(k), this.#ofJson(v)])),
      );
    return [];
  }

  #ofPiece(piece: string): Provenance[] {
    let found = this.#seen.get(piece);
    if (found === undefined) this.#seen.set(piece, (found = this.#match(piece)));
    return found;
  }

  #match(piece: string): Provenance[] {
    const text = normalizeText(piece);
    if (text.length < MIN_WHOLE) return [];
    const mailbox = piece.includes("@") ? normalizeMailbox(piece.trim()) : undefined;
    if (mailbox !== undefined && this.#ignored.has(mailbox)) return []; // the user's own address
    const out: Provenance[] = [];
    for (const k of this.#keys) {
      const how =
        text === k.whole || (mailbox !== undefined && k.mailboxes.includes(mailbox))
          ? "a literal"
          : k.tokens.some((t) => text.includes(t))
            ? "a literal holding a value"
            : sharesRun(text, k.whole)
              ? "a literal copying text"
              : undefined;
      if (how !== undefined) out.push(pastedFrom(k.given, how));
    }
    return mergeProvenance([out]);
  }
}

/** Whether `text` and `whole` share COPIED_RUN characters in a row (and maybe fewer, down to WINDOW). */
function sharesRun(text: string, whole: string): boolean {
  if (text.length < WINDOW || whole.length < WINDOW) return false;
  for (let i = 0; i + WINDOW <= text.length; i += WINDOW_STEP)
    if (whole.includes(text.slice(i, i + WINDOW))) return true;
  return false;
}
