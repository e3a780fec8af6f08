/** The bounds the serializer applies, handed to it as its one argument. */
export interface SerializerLimits {
  maxDepth: number;
  maxNodes: number;
  maxText: number;
}

/**
 * The serializer inside the VM: a value, and whether it is a trusted call's arguments, to "J" + JSON text or "E" + JSON
 * [path, reason].
 */
export type Serialize = (root: unknown, forCall?: boolean) => string;

/**
 * The serializer, made inside each fresh context (bridge.ts gives it its text) before the lockdown
 * and before any program code, over intrinsics it takes then (so nothing a program does later
 * changes them). It reads a value without running any program code: only own data properties,
 * through their descriptors, so an accessor is seen and never called; only arrays and objects
 * whose prototype is the realm's own Array.prototype, Object.prototype or null; no conversion
 * (toJSON, toString, valueOf) is ever looked up, and JSON.stringify is only given primitives. As
 * JSON.stringify does, an object property holding undefined is left out; unlike it, functions,
 * symbols, non-finite numbers, other objects, cycles and values too deep or too large are refused.
 * How it reads lists and hidden properties depends on what the value is for (see Reading in
 * marshal.ts). It answers "J" + JSON text, or "E" + JSON [path, reason].
 *
 * It runs in the VM rather than as a walk over handles from the host because each handle
 * operation costs microseconds and a trusted call's arguments need dozens of them.
 */
export function makeSerializer(limits: SerializerLimits): Serialize {
  const { getPrototypeOf, getOwnPropertyDescriptor } = Object;
  const { ownKeys } = Reflect;
  const { isArray } = Array;
  // biome-ignore lint/suspicious/noShadowRestrictedNames: Number.isFinite, taken before any program code
  const { isFinite } = Number;
  const stringify = JSON.stringify;
  // A string as JSON text: in quotes as it is when nothing in it needs escaping (what stringify
  // writes then, without its cost: a few µs a string in QuickJS), else by stringify. Surrogates go
  // to stringify too: a lone one would not survive the UTF-8 crossing to the host unescaped.
  const needsEscape = RegExp.prototype.test.bind(/["\\\u0000-\u001f\ud800-\udfff]/);
  const quote = (s: string): string => (needsEscape(s) ? stringify(s) : '"' + s + '"');
  const objectPrototype = Object.prototype;
  const arrayPrototype = Array.prototype;
  const MAX_DEPTH = limits.maxDepth,
    MAX_NODES = limits.maxNodes,
    MAX_TEXT = limits.maxText;
  // One walk at a time (it never runs program code, so nothing can start another): its state lives
  // here, and the helpers are made once (QuickJS makes closures slowly).
  let nodes: number, text: number, refusal: string | undefined, ancestors: object[], call: boolean;
  const refuse = (path: string, reason: string): undefined => {
    refusal = stringify([path, reason]);
    return undefined;
  };
  const count = (s: string, path: string): string | undefined => {
    text += s.length;
    return text > MAX_TEXT ? refuse(path, "holds more than " + MAX_TEXT + " characters of text") : quote(s);
  };
  // An own data property's value, or the reason it is refused; undefined when absent or hidden.
  const field = (object: object, key: string | number, path: string): string | undefined => {
    const d = getOwnPropertyDescriptor(object, key);
    if (d === undefined) return undefined;
    if (d.get !== undefined || d.set !== undefined) return refuse(path, "is an accessor (getter or setter)");
    if (!d.enumerable) return call ? refuse(path, "is a hidden (non-enumerable) property") : undefined;
    return walk(d.value, path);
  };
  // A list element: for a call, a hole or undefined is refused, never sent as a null the program did not write.
  const element = (list: object, i: number, path: string): string | undefined => {
    const item = field(list, i, path);
    return call && item === undefined && refusal === undefined
      ? refuse(path, "is undefined or a hole (a missing element), which is not data")
      : item;
  };
  const walk = (value: unknown, path: string): string | undefined => {
    if (refusal !== undefined) return undefined;
    if (++nodes > MAX_NODES) return refuse(path, "has more than " + MAX_NODES + " parts");
    switch (typeof value) {
      case "undefined":
        return undefined;
      case "boolean":
        return value ? "true" : "false";
      case "number":
        return isFinite(value)
          ? "" + value
          : refuse(
              path,
              "is " +
                // biome-ignore lint/suspicious/noSelfCompare: NaN is the one value unequal to itself
                (value !== value ? "NaN" : value > 0 ? "Infinity" : "-Infinity") +
                ", which is not JSON",
            );
      case "string":
        return count(value, path);
      case "object":
        break;
      default:
        return refuse(path, "is a " + typeof value + ", which is not plain data");
    }
    if (value === null) return "null";
    const depth = ancestors.length;
    if (depth >= MAX_DEPTH) return refuse(path, "is nested more than " + MAX_DEPTH + " levels deep");
    for (let i = 0; i < depth; i++) if (ancestors[i] === value) return refuse(path, "contains itself (a cycle)");
    const proto: unknown = getPrototypeOf(value);
    ancestors[depth] = value;
    let out: string;
    if (proto === arrayPrototype && isArray(value)) {
      const length = (getOwnPropertyDescriptor(value, "length") as PropertyDescriptor).value as number;
      if (length > MAX_NODES) return refuse(path, "has more than " + MAX_NODES + " parts");
      // For a call, a list holds its elements and nothing else (a property the JSON would drop);
      // more keys than that means another property, fewer a hole, which the walk refuses.
      if (call && ownKeys(value).length > length + 1) return refuse(path, "has properties other than its elements");
      out = "[";
      for (let i = 0; i < length; i++) {
        const item = element(value, i, path + "[" + i + "]");
        if (refusal !== undefined) return undefined;
        out += (i === 0 ? "" : ",") + (item === undefined ? "null" : item);
      }
      out += "]";
    } else if (proto === objectPrototype || proto === null) {
      const keys = ownKeys(value);
      out = "{";
      let first = true;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string | symbol;
        if (typeof key === "symbol") return refuse(path, "has a symbol-keyed property");
        const name = count(key, path);
        const item = field(value, key, path === "" ? key : path + "." + key);
        if (refusal !== undefined) return undefined;
        if (item === undefined) continue;
        out += (first ? "" : ",") + name + ":" + item;
        first = false;
      }
      out += "}";
    } else {
      return refuse(path, "is not a plain object or array");
    }
    ancestors.length = depth;
    return out;
  };
  return (root, forCall) => {
    call = forCall === true;
    nodes = 0;
    text = 0;
    refusal = undefined;
    ancestors = [];
    const json = walk(root, "");
    return refusal !== undefined ? "E" + refusal : "J" + (json === undefined ? "null" : json);
  };
}
