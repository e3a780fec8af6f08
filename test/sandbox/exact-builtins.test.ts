// The analyzer computes some built-ins and operators exactly when every input is a constant, by
// running them in V8 (the environment marks those built-ins `exact`); programs run in QuickJS.
// For each, a property test: whenever the analyzer gives a constant, the sandbox's realm computes
// that same value from the same inputs. Where the engines may differ (parseInt past 2^53, ** on
// most inputs) the analyzer must give no constant.
import fc from "fast-check";
import type { QuickJSContext, QuickJSHandle } from "quickjs-emscripten-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callGlobal, callMethod } from "../../src/analyze/domain/builtins.js";
import { constant } from "../../src/analyze/domain/lattice.js";
import { binary, unary } from "../../src/analyze/domain/operators.js";
import { GLOBALS } from "../../src/environment/environment.js";
import type { AbstractValue } from "../../src/model/abstract.js";
import type { Json } from "../../src/model/json.js";
import { sandboxRealm, type SandboxRealm } from "./helpers.js";

// FC_RUNS for a longer local run, FC_SEED to replay one (test/fast-check-setup.ts).
const RUNS = Number(process.env.FC_RUNS ?? 200);
// Enough inputs folded to a constant that the property is not vacuous; an operand mix that gives
// NaN or an infinity often (a / b) folds about 15% of them, so a tenth would fail by chance.
const FOLDED = RUNS / 20;

// A value as text that keeps what JSON loses (undefined, NaN, -0, infinities) and names a throw.
const ENCODE = `(v) => v === undefined ? "undefined" : typeof v === "number" && (v !== v || v === 1 / 0 || v === -1 / 0 || (v === 0 && 1 / v < 0)) ? String(1 / v === -1 / 0 ? "-0" : v) : JSON.stringify(v)`;
const encode = new Function(`return ${ENCODE}`)() as (v: unknown) => string;

// Made before the lockdown, called after it: each computation runs in the realm as a program's would.
const EVALUATOR = `(() => {
  const parse = JSON.parse;
  const encode = ${ENCODE};
  const globals = { String, Number, Boolean, parseInt, parseFloat, encodeURIComponent, decodeURIComponent, Object, Array, Math, JSON };
  const operators = {
    "+": (a, b) => a + b, "-": (a, b) => a - b, "*": (a, b) => a * b, "/": (a, b) => a / b, "%": (a, b) => a % b, "**": (a, b) => a ** b,
    "<": (a, b) => a < b, ">": (a, b) => a > b, "<=": (a, b) => a <= b, ">=": (a, b) => a >= b,
    "&": (a, b) => a & b, "|": (a, b) => a | b, "^": (a, b) => a ^ b, "<<": (a, b) => a << b, ">>": (a, b) => a >> b, ">>>": (a, b) => a >>> b,
    "===": (a, b) => a === b, "!==": (a, b) => a !== b, "==": (a, b) => a == b, "!=": (a, b) => a != b,
    "unary -": (a) => -a, "unary +": (a) => +a, "unary ~": (a) => ~a, "unary !": (a) => !a,
  };
  return (text) => {
    const [kind, name, receiver, args] = parse(text);
    try {
      if (kind === "method") return encode(receiver[name](...args));
      if (kind === "operator") return encode(operators[name](...args));
      const dot = name.indexOf(".");
      return encode(dot < 0 ? globals[name](...args) : globals[name.slice(0, dot)][name.slice(dot + 1)](...args));
    } catch (e) {
      return "throws " + e.name;
    }
  };
})()`;

let realm: SandboxRealm;
beforeAll(async () => {
  realm = await sandboxRealm(EVALUATOR);
});
afterAll(() => realm?.dispose());

type Kind = "method" | "global" | "operator";

function inSandbox(kind: Kind, name: string, receiver: Json, args: Json[]): string {
  const { vm } = realm;
  const text = vm.newString(JSON.stringify([kind, name, receiver, args]));
  const result = vm.unwrapResult(vm.callFunction(realm.value, vm.undefined, text)) as QuickJSHandle;
  text.dispose();
  const out = (vm as QuickJSContext).getString(result);
  result.dispose();
  return out;
}

function analyzed(kind: Kind, name: string, receiver: Json, args: Json[]): AbstractValue {
  const values = args.map((a) => constant(a));
  if (kind === "method") return callMethod(constant(receiver), name, values);
  if (kind === "global") return callGlobal(name, values);
  return name.startsWith("unary ") ? unary(name.slice(6), values[0]!) : binary(name, values[0]!, values[1]!);
}

/** Runs the property; returns how many inputs the analyzer gave constants for (the sandbox's value must be one of them). */
function agree(kind: Kind, name: string, inputs: fc.Arbitrary<[Json, Json[]]>): number {
  let constants = 0;
  fc.assert(
    fc.property(inputs, ([receiver, args]) => {
      const result = analyzed(kind, name, receiver, args);
      if (result.kind !== "const") return;
      constants++;
      expect(result.values.map(encode), `${name} on ${JSON.stringify([receiver, args])}`).toContain(
        inSandbox(kind, name, receiver, args),
      );
    }),
    { numRuns: RUNS },
  );
  return constants;
}

// Inputs: constants a program can hold (no -0, NaN or infinity: the analyzer keeps none of them).
const finite = (x: number): number => (Object.is(x, -0) ? 0 : x);
const SPECIAL_TEXT = [
  "ß",
  "İ",
  "ı",
  "Σ",
  "ΑΣ ",
  "ǅ",
  "ŉ",
  "ﬀ",
  "ΐ",
  "\u0345",
  "i\u0307",
  "\u1E9E",
  "\u{10400}",
  "\u{1F600}",
  "\uD800",
  "\u180E",
  "\uFEFF",
  "\u2028",
  "\u00A0",
  " a\t\n",
  "%",
  "%E0%A4%A",
  "%C3%A9",
  "%ED%A0%80",
  "$&",
  "$1",
  "$<a>",
  "$$",
  "$'",
  "$`",
  "a,b",
  "",
];
const text = fc.oneof(
  fc.string({ unit: "binary", maxLength: 10 }),
  fc.string({ unit: "grapheme", maxLength: 6 }),
  fc.string({ maxLength: 10 }),
  fc.constantFrom(...SPECIAL_TEXT),
);
const number = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(finite),
  fc.integer({ min: -1000, max: 1000 }),
  fc.constantFrom(
    0.1,
    0.5,
    1.5,
    2.5,
    -0.5,
    1e21,
    1e-7,
    123e-20,
    5e-324,
    1.7976931348623157e308,
    2 ** 53,
    2 ** 53 + 2,
    2 ** 31,
    2 ** 32,
    -(2 ** 31),
  ),
);
const NUMERIC_TEXT = [
  "0x1F",
  "0b11",
  "0o17",
  " 12 ",
  "1_000",
  "Infinity",
  "-Infinity",
  "+1",
  ".5",
  "5.",
  "1e1000",
  "0x",
  "00012",
  "1.5e+3x",
  "9007199254740993",
  "123456789012345678901234567890",
  "zz",
  "-0",
];
const numericText = fc.oneof(
  number.map(String),
  fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 15, maxLength: 40 }),
  fc.string({ unit: fc.constantFrom(..."0123456789abcdefghijklmnopqrstuvwxyz"), minLength: 1, maxLength: 24 }),
  fc.constantFrom(...NUMERIC_TEXT),
  text,
);
const small = fc.integer({ min: -12, max: 12 });
const primitive: fc.Arbitrary<Json> = fc.oneof(text, number, fc.boolean(), fc.constant(null));
const array: fc.Arbitrary<Json[]> = fc.array(fc.oneof(primitive, fc.array(primitive, { maxLength: 3 })), {
  maxLength: 6,
});
const json: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 3 },
    primitive,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(text, fc.nat({ max: 2 ** 32 }).map(String)), tie("value"), { maxKeys: 4 }),
  ),
})).value;

const args = (...parts: fc.Arbitrary<Json>[]): fc.Arbitrary<Json[]> => fc.tuple(...parts);
const upTo = (max: number, part: fc.Arbitrary<Json>): fc.Arbitrary<Json[]> => fc.array(part, { maxLength: max });
const on = (receiver: fc.Arbitrary<Json>, rest: fc.Arbitrary<Json[]>): fc.Arbitrary<[Json, Json[]]> =>
  fc.tuple(receiver, rest);
const call = (rest: fc.Arbitrary<Json[]>): fc.Arbitrary<[Json, Json[]]> => on(fc.constant(null), rest);
const searchArgs = fc.oneof(args(text), args(text, small));

/** Inputs for every built-in the environment marks exact, by the name the analyzer calls it. */
const INPUTS: Record<string, fc.Arbitrary<[Json, Json[]]>> = {
  parseInt: call(fc.oneof(args(numericText), args(numericText, fc.integer({ min: 0, max: 37 })))),
  parseFloat: call(args(numericText)),
  encodeURIComponent: call(args(fc.oneof(text, number, fc.boolean()))),
  decodeURIComponent: call(
    args(fc.oneof(text, fc.constantFrom("%41%42", "%c3%a9", "%F0%9F%98%80", "%C0%80", "%F4%90%80%80", "%ZZ"))),
  ),
  String: call(args(primitive)),
  Number: call(args(fc.oneof(primitive, numericText))),
  Boolean: call(args(json)),
  "Object.keys": call(
    args(
      fc.dictionary(
        fc.oneof(text, fc.nat({ max: 2 ** 32 + 2 }).map(String), fc.constantFrom("-1", "01", "1.5")),
        primitive,
        { maxKeys: 6 },
      ),
    ),
  ),
  "Number.parseFloat": call(args(numericText)),
  "Number.parseInt": call(fc.oneof(args(numericText), args(numericText, fc.integer({ min: 0, max: 37 })))),
  "Array.isArray": call(args(json)),
  "Math.abs": call(args(number)),
  "Math.ceil": call(args(number)),
  "Math.floor": call(args(number)),
  "Math.round": call(args(number)),
  "Math.trunc": call(args(number)),
  "Math.max": call(upTo(4, number)),
  "Math.min": call(upTo(4, number)),
  "JSON.stringify": call(args(json)),
  "String.prototype.at": on(text, args(small)),
  "String.prototype.charAt": on(text, args(small)),
  "String.prototype.charCodeAt": on(text, args(small)),
  "String.prototype.concat": on(text, upTo(3, primitive)),
  "String.prototype.endsWith": on(text, searchArgs),
  "String.prototype.includes": on(text, searchArgs),
  "String.prototype.indexOf": on(text, searchArgs),
  "String.prototype.lastIndexOf": on(text, searchArgs),
  "String.prototype.padEnd": on(text, fc.oneof(args(small), args(fc.integer({ min: 0, max: 30 }), text))),
  "String.prototype.padStart": on(text, fc.oneof(args(small), args(fc.integer({ min: 0, max: 30 }), text))),
  "String.prototype.repeat": on(text, args(fc.integer({ min: -1, max: 5 }))),
  "String.prototype.replace": on(text, args(text, text)),
  "String.prototype.replaceAll": on(text, args(text, text)),
  "String.prototype.slice": on(text, upTo(2, small)),
  "String.prototype.split": on(text, fc.oneof(args(text), args(text, fc.integer({ min: -1, max: 5 })))),
  "String.prototype.startsWith": on(text, searchArgs),
  "String.prototype.substring": on(text, upTo(2, small)),
  "String.prototype.toLowerCase": on(text, args()),
  "String.prototype.toUpperCase": on(text, args()),
  "String.prototype.trim": on(text, args()),
  "String.prototype.trimEnd": on(text, args()),
  "String.prototype.trimStart": on(text, args()),
  "Array.prototype.at": on(array, args(small)),
  "Array.prototype.concat": on(array, upTo(3, fc.oneof(primitive, array))),
  "Array.prototype.includes": on(array, args(primitive)),
  "Array.prototype.indexOf": on(array, args(primitive)),
  "Array.prototype.join": on(array, upTo(1, text)),
  "Array.prototype.slice": on(array, upTo(2, small)),
};

/** The built-ins the environment marks exact, as [kind, name the analyzer calls, key of INPUTS]. */
function exactBuiltins(): [Kind, string, string][] {
  const out: [Kind, string, string][] = [];
  for (const g of GLOBALS) {
    if (g.exact === true) out.push(["global", g.name, g.name]);
    for (const m of g.statics?.members ?? [])
      if (m.exact === true) out.push(["global", `${g.name}.${m.name}`, `${g.name}.${m.name}`]);
    for (const m of g.prototype?.members ?? [])
      if (m.exact === true) out.push(["method", m.name, `${g.name}.prototype.${m.name}`]);
  }
  return out;
}

describe("built-ins the analyzer computes exactly", () => {
  it("each has inputs here", () => {
    expect(
      exactBuiltins()
        .map(([, , key]) => key)
        .filter((key) => INPUTS[key] === undefined),
    ).toEqual([]);
  });

  for (const [kind, name, key] of exactBuiltins()) {
    it(`${key}: the analyzer's constant is what the sandbox computes`, () => {
      const constants = agree(kind, name, INPUTS[key]!);
      expect(constants, "inputs the analyzer computed").toBeGreaterThan(FOLDED);
    });
  }
});

describe("operators the analyzer folds", () => {
  const operand: fc.Arbitrary<Json> = fc.oneof(primitive, numericText, fc.array(primitive, { maxLength: 2 }));
  const integers = fc.tuple(fc.integer({ min: -100, max: 100 }), fc.integer({ min: -40, max: 40 }));
  const BINARY: Record<string, fc.Arbitrary<Json[]>> = {};
  for (const op of [
    "+",
    "-",
    "*",
    "/",
    "%",
    "<",
    ">",
    "<=",
    ">=",
    "&",
    "|",
    "^",
    "<<",
    ">>",
    ">>>",
    "===",
    "!==",
    "==",
    "!=",
  ])
    BINARY[op] = args(operand, operand);
  BINARY["**"] = fc.oneof(
    args(number, number),
    integers,
    args(fc.integer({ min: -100, max: 100 }), fc.double({ min: -40, max: 40, noNaN: true }).map(finite)),
  );
  for (const [op, inputs] of Object.entries(BINARY)) {
    it(`a ${op} b: the analyzer's constant is what the sandbox computes`, () => {
      expect(agree("operator", op, call(inputs)), "inputs the analyzer computed").toBeGreaterThan(
        op === "**" ? 0 : FOLDED,
      );
    });
  }
  for (const op of ["-", "+", "~", "!"]) {
    it(`${op}a: the analyzer's constant is what the sandbox computes`, () => {
      expect(
        agree("operator", `unary ${op}`, call(args(fc.oneof(operand, json)))),
        "inputs the analyzer computed",
      ).toBeGreaterThan(FOLDED);
    });
  }
});
