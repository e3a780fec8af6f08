import type { SandboxAllowlist } from "./allowlist.js";

/**
 * Members the engine itself reaches, which a program never names: conversions look up
 * `toString`/`valueOf` (so `String([1, 2])` is "1,2" as the analyzer computes it), string methods
 * with a regular expression run the RegExp protocol, `await` compares a promise's `constructor`
 * (without it every await of a promise takes two extra turns, unlike the engines the analyzer's
 * assumptions come from), and errors the engine throws keep their names.
 *
 * Intrinsics that syntax reaches without any global (function kinds, generators, bigint literals)
 * are listed with no member, so the lockdown strips them bare: in particular the `constructor` of
 * every function prototype, the way back to `Function`.
 */
export const ENGINE_ALLOWLIST: SandboxAllowlist = {
  globals: ["undefined"],
  members: {
    "Object.prototype": ["toString", "valueOf"],
    "Array.prototype": ["toString"],
    "String.prototype": ["toString", "valueOf"],
    "Number.prototype": ["valueOf"],
    "Boolean.prototype": ["toString", "valueOf"],
    "Error.prototype": ["toString"],
    "Date.prototype": ["toString", "valueOf", "toJSON", "@@toPrimitive"],
    "Promise.prototype": ["constructor"],
    "%RegExpPrototype%": [
      "exec", "flags", "global", "ignoreCase", "multiline", "dotAll", "unicode", "unicodeSets", "sticky", "hasIndices",
      "source", "@@match", "@@replace", "@@search", "@@split",
    ],
    "%ReferenceErrorPrototype%": ["name", "message"],
    "%SyntaxErrorPrototype%": ["name", "message"],
    "%URIErrorPrototype%": ["name", "message"],
    "%EvalErrorPrototype%": ["name", "message"],
    "%InternalErrorPrototype%": ["name", "message"],
    "%SymbolPrototype%": [],
    "%BigIntPrototype%": [],
    "%AsyncFunctionPrototype%": [],
    "%GeneratorFunctionPrototype%": [],
    "%GeneratorPrototype%": [],
    "%AsyncGeneratorFunctionPrototype%": [],
    "%AsyncGeneratorPrototype%": [],
    "%AsyncIteratorPrototype%": [],
  },
};

/** The program's allowlist and the engine's members together: what the lockdown keeps. */
export function mergeAllowlists(...lists: SandboxAllowlist[]): SandboxAllowlist {
  const members: Record<string, string[]> = {};
  for (const list of lists) {
    for (const [name, keys] of Object.entries(list.members)) members[name] = [...new Set([...(members[name] ?? []), ...keys])];
  }
  return { globals: [...new Set(lists.flatMap((l) => l.globals))], members };
}
