import { callText } from "../model/index.js";
import { GLOBALS, INTRINSICS, MAX_ARRAY_LENGTH, type Member } from "./environment.js";
import { type HardeningPlan, hardenRealm } from "./realm-hardening.js";

/** One object of the environment as a realm finds it, and the own keys it keeps. */
export interface KeptObject {
  name: string;
  /** JavaScript source of an expression that finds it in the realm (`G` is the global object). */
  find: string;
  keep: string[];
  /** Only some engines have it: the others find undefined and skip it. */
  engineSpecific?: true;
}

/** What a realm keeps: the global object's keys, and each listed object's own keys. */
export interface RuntimeAllowlist {
  globals: string[];
  objects: KeptObject[];
}

const names = (members: readonly Member[]): string[] => members.map((m) => m.name);

/**
 * The environment as a realm keeps it: what the hardening script is built from, and the agreement tests compare
 * against.
 */
export function runtimeAllowlist(): RuntimeAllowlist {
  const objects: KeptObject[] = [];
  const present = GLOBALS.filter((g) => g.typesOnly !== true);
  for (const g of present) {
    const statics = names(g.statics?.members ?? []);
    // A global with a prototype is a constructor: a function, which keeps its length, name and prototype.
    if (g.prototype !== undefined) {
      objects.push({ name: g.name, find: `G.${g.name}`, keep: ["length", "name", "prototype", ...statics] });
      objects.push({ name: `${g.name}.prototype`, find: `G.${g.name}.prototype`, keep: names(g.prototype.members) });
    } else if (g.statics !== undefined) objects.push({ name: g.name, find: `G.${g.name}`, keep: statics });
  }
  for (const i of INTRINSICS)
    objects.push({
      name: i.name,
      find: i.find,
      keep: names(i.members),
      ...(i.engineSpecific === true ? { engineSpecific: true as const } : {}),
    });
  return { globals: present.map((g) => g.name), objects };
}

let script: string | undefined;

/**
 * JavaScript to evaluate in a fresh realm before the program: the realm then offers exactly the
 * environment. Every runner (node:vm for the tests, QuickJS for programs) runs this same text.
 *
 * From the global object and the intrinsics a program reaches through syntax (function, iterator
 * and regexp prototypes, errors the engine throws), every object reachable through properties,
 * accessors and prototypes is visited; each keeps only the keys its entry lists (a function with
 * no entry keeps `length` and `name`, any other object nothing), and all are frozen. A key that
 * cannot be removed, or a listed global or object the realm lacks, stops the script with an
 * error, so the realm is never left half-built; only the engine's constants (`Math.PI`: fixed
 * primitives) stay where they are. The script takes what it uses from the realm before it removes
 * anything, and needs neither `eval` nor the host.
 */
export function hardeningScript(): string {
  script ??= buildScript(runtimeAllowlist());
  return script;
}

/**
 * The environment's array methods with their lengths checked first (MAX_ARRAY_LENGTH). An engine
 * may walk an array's length in a native loop that never yields (QuickJS asks its interrupt
 * handler only between bytecodes), and a length is set by assignment where nothing can check it:
 * `a.length = 2 ** 32 - 1` makes an empty array whose join() would run for minutes. So each
 * method that walks `this` refuses one longer than the cap with a RangeError before it starts;
 * concat counts its arguments too, flat every array it would enter, flatMap each array its callback
 * returns. The length is read without running program code (an array's own length; an array-like's
 * data property, never an accessor, which could answer one length here and another to the
 * method), so the method walks exactly what was checked. Wrappers keep the method's name and length.
 */
const GUARDED_METHODS = [
  "every",
  "filter",
  "forEach",
  "includes",
  "indexOf",
  "join",
  "map",
  "reduce",
  "slice",
  "some",
  "reverse",
  "shift",
  "sort",
  "splice",
  "unshift",
];

/**
 * Key names as a set for the script: string keys as an object's keys (JSON.parse builds it), then any well-known
 * symbols by name.
 */
function keySet(names: readonly string[]): [Record<string, 1>] | [Record<string, 1>, string[]] {
  const keys = Object.fromEntries(names.filter((n) => !n.startsWith("@@")).map((n) => [n, 1] as const));
  const symbols = names.filter((n) => n.startsWith("@@")).map((n) => n.slice(2));
  return symbols.length === 0 ? [keys] : [keys, symbols];
}

function buildScript(allow: RuntimeAllowlist): string {
  // Only the key sets go through JSON.parse in the realm: every key it reads costs the interpreter.
  const plan: HardeningPlan = {
    keySets: JSON.stringify([keySet(allow.globals), ...allow.objects.map((o) => keySet(o.keep))]),
    names: allow.objects.map((o) => o.name).join(","),
    engineSpecific: allow.objects.flatMap((o, i) => (o.engineSpecific === true ? [i] : [])),
    maxArrayLength: MAX_ARRAY_LENGTH,
    guardedMethods: GUARDED_METHODS,
  };
  // The script's own directive: strict whatever the loader kept of the function's text.
  return `"use strict";\n${callText(hardenRealm, JSON.stringify(plan), `(G) => [${allow.objects.map((o) => o.find).join(", ")}]`)};`;
}
