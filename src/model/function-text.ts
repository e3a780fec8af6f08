/**
 * The text of a call of `fn` with the given argument texts, for a realm that shares nothing with
 * this one (a QuickJS context, a browser page): the code stays a typed function that the compiler
 * checks, and its source text is what the realm evaluates. So `fn` must close over nothing: all
 * it uses comes from its arguments or the realm's own globals.
 *
 * A loader that keeps function names (esbuild's keepNames, which tsx uses to run the source)
 * writes calls of its `__name` helper into the function's text; the text then gets the same
 * helper, as a parameter of a wrapping arrow. Compiled by tsc, the text holds no such call and
 * is the function as written, without its types.
 */
export function callText(fn: (...args: never[]) => unknown, ...args: string[]): string {
  const call = `(${fn.toString()})(${args.join(", ")})`;
  return call.includes("__name(") ? `((__name) => ${call})(${keepName.toString()})` : call;
}

// esbuild's `__name`: the name a function would have had, set as the engine sets it.
const keepName = (target: object, value: string): object =>
  Object.defineProperty(target, "name", { value, configurable: true });
