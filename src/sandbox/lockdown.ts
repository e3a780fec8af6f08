import type { QuickJSContext } from "quickjs-emscripten-core";
import { CountersignError } from "../model/errors.js";
import type { SandboxAllowlist } from "./allowlist.js";

/** How the lockdown finds intrinsics that no global names. */
const HIDDEN_INTRINSICS = `(() => {
  const fn = function () {};
  const asyncFn = async function () {};
  const generatorFn = function* () {};
  const asyncGeneratorFn = async function* () {};
  const arrayIterator = [][Symbol.iterator]();
  return {
    "%FunctionPrototype%": getPrototypeOf(fn),
    "%AsyncFunctionPrototype%": getPrototypeOf(asyncFn),
    "%GeneratorFunctionPrototype%": getPrototypeOf(generatorFn),
    "%GeneratorPrototype%": getPrototypeOf(generatorFn.prototype),
    "%AsyncGeneratorFunctionPrototype%": getPrototypeOf(asyncGeneratorFn),
    "%AsyncGeneratorPrototype%": getPrototypeOf(asyncGeneratorFn.prototype),
    "%AsyncIteratorPrototype%": getPrototypeOf(getPrototypeOf(asyncGeneratorFn.prototype)),
    "%IteratorPrototype%": getPrototypeOf(getPrototypeOf(arrayIterator)),
    "%ArrayIteratorPrototype%": getPrototypeOf(arrayIterator),
    "%StringIteratorPrototype%": getPrototypeOf(""[Symbol.iterator]()),
    "%RegExpPrototype%": getPrototypeOf(/x/),
    "%SymbolPrototype%": getPrototypeOf(Symbol.iterator),
    "%BigIntPrototype%": getPrototypeOf(0n),
    "%ReferenceErrorPrototype%": ReferenceError.prototype,
    "%SyntaxErrorPrototype%": SyntaxError.prototype,
    "%URIErrorPrototype%": URIError.prototype,
    "%EvalErrorPrototype%": EvalError.prototype,
    "%InternalErrorPrototype%": typeof InternalError === "function" ? InternalError.prototype : undefined,
  };
})()`;

/**
 * The script that turns a fresh context into the program's environment. It runs before any
 * program code, on intrinsics nobody else has touched:
 * 1. every listed intrinsic loses the own members its list does not name (a function keeps its
 *    `length`, `name` and `prototype`); non-configurable members cannot go and stay;
 * 2. every global not listed is deleted (`eval`, `Function`, `Proxy`, `Reflect`, `globalThis`,
 *    the host's temporary names, ...);
 * 3. the listed intrinsics, the global object and every function or object their members hold
 *    (accessor functions included) are frozen: all that is still reachable.
 * Function constructors go in step 1: no function prototype lists `constructor`.
 */
/**
 * How intrinsics and their members are named, as script text shared by the lockdown and the
 * agreement test: \`resolve(name)\` finds an intrinsic by its allowlist name, \`keyName(key)\`
 * writes a member's key (\`@@iterator\` for Symbol.iterator). It takes what it needs when it runs
 * (before the lockdown), so it still works after. Needs \`G\` (the global object) in scope.
 */
export const NAMING = `
  const { getPrototypeOf } = Object;
  const apply = Reflect.apply;
  const describeSymbol = Object.getOwnPropertyDescriptor(Symbol.prototype, "description").get;
  const replace = String.prototype.replace;
  const keyName = (key) => (typeof key === "symbol" ? "@@" + apply(replace, String(apply(describeSymbol, key, [])), [/^Symbol\\./, ""]) : key);
  const hidden = ${HIDDEN_INTRINSICS};
  const resolve = (name) => {
    if (name[0] === "%") return hidden[name];
    let value = G;
    for (const part of apply(String.prototype.split, name, ["."])) value = value == null ? undefined : value[part];
    return value;
  };
`;

export function lockdownScript(allowlist: SandboxAllowlist): string {
  return `(function (allow) {
  "use strict";
  const { getOwnPropertyDescriptors, freeze } = Object;
  const { ownKeys, deleteProperty } = Reflect;
  const SafeSet = Set;
  const G = globalThis;
${NAMING}
  // Resolve everything and decide every deletion before deleting anything: stripping one
  // intrinsic must not change how another is found.
  const targets = [[G, new SafeSet(allow.globals)]];
  for (const name of ownKeys(allow.members)) {
    const target = resolve(name);
    if (target === undefined) continue;
    const keep = new SafeSet(allow.members[name]);
    if (typeof target === "function") for (const basic of ["length", "name", "prototype"]) keep.add(basic);
    targets.push([target, keep]);
  }
  const doomed = [];
  for (const [target, keep] of targets) for (const key of ownKeys(target)) if (!keep.has(keyName(key))) doomed.push([target, key]);
  for (let i = 0; i < doomed.length; i++) deleteProperty(doomed[i][0], doomed[i][1]);
  // Freeze the listed objects and every object or function their members hold. A built-in
  // function has only primitive own members (length, name) once its prototype is a listed object,
  // so one level is the whole reachable graph; the agreement test walks it all to check.
  const listed = new SafeSet();
  for (let i = 0; i < targets.length; i++) listed.add(targets[i][0]);
  const seen = new SafeSet();
  const freezeMember = (v) => {
    if (((typeof v === "object" && v !== null) || typeof v === "function") && !listed.has(v) && !seen.has(v)) {
      seen.add(v);
      freeze(v);
    }
  };
  for (let t = 0; t < targets.length; t++) {
    const object = targets[t][0];
    freeze(object);
    const descriptors = getOwnPropertyDescriptors(object);
    const keys = ownKeys(descriptors);
    for (let i = 0; i < keys.length; i++) {
      const d = descriptors[keys[i]];
      freezeMember(d.value);
      freezeMember(d.get);
      freezeMember(d.set);
    }
  }
})(JSON.parse(${JSON.stringify(JSON.stringify(allowlist))}));`;
}

/** Run the lockdown in `vm`; a failure here is a bug of ours, never the program's. */
export function lockDown(vm: QuickJSContext, allowlist: SandboxAllowlist): void {
  const result = vm.evalCode(lockdownScript(allowlist), "countersign:lockdown");
  if (result.error !== undefined) {
    const reason: unknown = vm.dump(result.error);
    result.error.dispose();
    throw new CountersignError("internal_error", "sandbox", `the sandbox lockdown failed: ${JSON.stringify(reason)}`);
  }
  result.value.dispose();
}
