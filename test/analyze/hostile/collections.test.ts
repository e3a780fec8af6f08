import { afterAll, describe, expect, it } from "vitest";
import type { Effect, Facts, Provenance } from "../../../src/model/index.js";
import { sharedAnalyzer } from "../harness.js";
import { prog } from "./program.js";

/**
 * Maps, Sets and computed indexes as an attacker would use them: to launder what a read returned
 * into a value that looks like the program's own, to steer a call by it, or to hide a change or a
 * call. Each program is either analyzed with the read's provenance kept on the sink (the email's
 * recipients, body or the call's influence) or refused with a diagnostic that says why.
 */
const analyzer = sharedAnalyzer();
afterAll(() => analyzer.dispose());

const READ = `const secret = String(await readFile({ path: "/in.txt" }));`;
const send = (to: string, body = `"b"`): string => `await sendEmail({ to: [${to}], subject: "s", body: ${body} });`;

const fromRead = (ps: readonly Provenance[] | undefined): boolean =>
  (ps ?? []).some((p) => p.untrusted && p.op === "fs.read_file");
const sendOf = (facts: Facts): Effect[] => facts.effects.filter((e) => e.op === "email.send_email");

/** The read's provenance reaches the first send: in its recipients' sources, or in what influenced it. */
function tainted(facts: Facts, where: "to" | "body" | "influence" | "any"): boolean {
  return sendOf(facts).some((e) => {
    const to = fromRead(e.sources?.to);
    const body = fromRead(e.sources?.body);
    const influence = fromRead(e.influencedBy);
    return where === "to" ? to : where === "body" ? body : where === "influence" ? influence : to || body || influence;
  });
}

interface Kept {
  name: string;
  body: string;
  top?: string;
  where: "to" | "body" | "influence" | "any";
}

const kept: Kept[] = [
  {
    name: "an untrusted value stored as a Map value and read back by a constant key",
    body: `${READ}\nconst m = new Map<string, string>();\nm.set("to", secret);\n${send(`m.get("to") ?? "a@x.com"`)}`,
    where: "to",
  },
  {
    name: "an untrusted key chooses a trusted value",
    body: `${READ}\nconst m = new Map([["a", "a@x.com"], ["b", "b@x.com"]]);\n${send(`m.get(secret) ?? "c@x.com"`)}`,
    where: "any",
  },
  {
    name: "an untrusted Map key decides whether a constant key is present",
    body: `${READ}\nconst m = new Map<string, string>();\nm.set(secret, "x");\nconst hit = m.get("admin");\nif (hit !== undefined) {\n${send(`"a@x.com"`)}\n}`,
    where: "influence",
  },
  {
    name: "laundering through a Set and its spread",
    body: `${READ}\nconst s = new Set<string>(["a@x.com"]);\ns.add(secret);\nconst all = [...s];\n${send(`all[0] ?? "a@x.com"`)}`,
    where: "to",
  },
  {
    name: "Set.has over untrusted elements steers a call",
    body: `${READ}\nconst s = new Set([secret]);\nif (s.has("a@x.com")) {\n${send(`"a@x.com"`)}\n}`,
    where: "influence",
  },
  {
    name: "a computed index chosen by untrusted data",
    body: `${READ}\nconst xs = ["a@x.com", "b@x.com"];\nconst i = Math.min(secret.length, 1);\n${send(`xs[i] ?? "a@x.com"`)}`,
    where: "influence",
  },
  {
    name: "an index found by indexOf of untrusted data",
    body: `${READ}\nconst xs = ["a@x.com", "b@x.com"];\nconst i = xs.indexOf(secret);\n${send(`xs[i + 1] ?? "a@x.com"`)}`,
    where: "influence",
  },
  {
    name: "a change through a second name for the Map",
    body: `${READ}\nconst m = new Map<string, string>();\nconst alias = m;\nalias.set("to", secret);\n${send(`m.get("to") ?? "a@x.com"`)}`,
    where: "to",
  },
  {
    name: "a change through a second name for an array (push)",
    body: `${READ}\nconst a: string[] = [];\nconst b = a;\nb.push(secret);\n${send(`a[0] ?? "a@x.com"`)}`,
    where: "to",
  },
  {
    name: "a change through the Map returned by set()",
    body: `${READ}\nconst m = new Map<string, string>();\nconst same = m.set("k", "a@x.com");\nsame.set("to", secret);\n${send(`m.get("to") ?? "a@x.com"`)}`,
    where: "to",
  },
  {
    name: "a change after a call, through a helper's parameter",
    body: `${READ}\nconst m = new Map<string, string>();\nput(m, secret);\n${send(`m.get("to") ?? "a@x.com"`)}`,
    top: `function put(target: Map<string, string>, value: string): void { target.set("to", value); }\n`,
    where: "to",
  },
  {
    name: "a Map held in an object and changed through the field",
    body: `${READ}\nconst box = { m: new Map<string, string>() };\nbox.m.set("to", secret);\nconst again = box.m;\n${send(`again.get("to") ?? "a@x.com"`)}`,
    where: "to",
  },
  {
    name: "new Map over untrusted entries",
    body: `${READ}\nconst m = new Map(secret.split(",").map((p) => [p, p] as [string, string]));\nfor (const [k] of m) {\n${send("k")}\n}`,
    where: "to",
  },
  {
    name: "an object as a Map key, the value read through iteration",
    body: `${READ}\nconst key = { id: 1 };\nconst m = new Map<{ id: number }, string>([[key, "a@x.com"]]);\nm.set({ id: 2 }, secret);\nm.forEach((v) => { void sendEmail({ to: [v], subject: "s", body: "b" }); });`,
    where: "to",
  },
  {
    name: "a loop whose iterations an untrusted Map decides",
    body: `${READ}\nconst m = new Map<string, number>();\nfor (const part of secret.split(",")) m.set(part, 1);\nfor (const k of m.keys()) {\n${send(`"a@x.com"`)}\n}`,
    where: "influence",
  },
  {
    name: "deleting during iteration",
    body: `${READ}\nconst s = new Set(["a@x.com", secret]);\nfor (const x of s) {\ns.delete(secret);\n${send("x")}\n}`,
    where: "to",
  },
  {
    name: "the size of a Set of untrusted parts as an index",
    body: `${READ}\nconst s = new Set(secret.split(","));\nconst xs = ["a@x.com", "b@x.com"];\n${send(`xs[s.size] ?? "a@x.com"`)}`,
    where: "influence",
  },
  {
    name: "entries() kept in a variable, then walked",
    body: `${READ}\nconst m = new Map([["a@x.com", secret]]);\nconst it = m.entries();\nfor (const [k, v] of it) {\n${send("k", "v")}\n}`,
    where: "body",
  },
];

interface Refused {
  name: string;
  body: string;
  top?: string;
  construct: RegExp;
}

const refused: Refused[] = [
  {
    name: "subclassing Map",
    top: `class Sneaky extends Map<string, string> {}\n`,
    body: `const m = new Sneaky();`,
    construct: /class/,
  },
  {
    name: "replacing Map.prototype.get",
    body: `Map.prototype.get = () => "a@x.com";`,
    construct: /prototype access|a write to Map/,
  },
  {
    name: "replacing Set.prototype.has",
    body: `Set.prototype.has = () => true;`,
    construct: /prototype access|a write to Set/,
  },
  {
    name: "a Symbol.iterator override on an object",
    body: `const o = { [Symbol.iterator]: () => [].values() };`,
    construct: /Symbol|computed property name/,
  },
  {
    name: "a Symbol.iterator override on a Map",
    body: `const m = new Map<string, string>();\n(m as unknown as Record<symbol, unknown>)[Symbol.iterator] = () => [].values();`,
    construct: /Symbol|double cast|computed member access/,
  },
  {
    name: "a computed key that is a string in disguise",
    body: `const o = { k: "constructor" as string | number };\nconst xs = ["a"];\nconst f = xs[o.k as number];`,
    construct: /computed member access/,
  },
  {
    name: "a computed key from a parameter given a string in disguise",
    top: `function at(xs: string[], k: number): string | undefined { return xs[k]; }\n`,
    body: `const o = { k: "constructor" as string | number };\nconst v = at(["a"], o.k as number);`,
    construct: /computed member access/,
  },
  {
    name: "a computed key in code the analysis never reaches",
    top: `function at(xs: string[], k: number): string | undefined { return xs[k]; }\n`,
    body: `const v = 1;`,
    construct: /computed member access/,
  },
  {
    name: "a Map's get taken as a value and called",
    body: `const m = new Map<string, string>();\nconst g = m["g" + "et"];`,
    construct: /computed member access|no index signature/,
  },
  {
    name: "reaching a collection's constructor",
    body: `const m = new Map<string, string>();\nconst c = m.constructor;`,
    construct: /constructor access/,
  },
  {
    name: "a shadowing local named Map",
    top: `function Map(): void {}\n`,
    body: `const m = new Map();`,
    construct: /.*/,
  },
];

describe("Maps, Sets and computed indexes against a hostile program", () => {
  it("accepts a parameter as an index where every call passes a number", () => {
    const facts = analyzer.analyze(
      prog(`const v = at(["a@x.com", "b@x.com"], 1);\n${send(`v ?? "c@x.com"`)}`, {
        top: `function at(xs: string[], k: number): string | undefined { return xs[k]; }\n`,
      }),
    );
    expect(facts.diagnostics).toEqual([]);
    expect(sendOf(facts)[0]!.args.to).toEqual({ kind: "const", values: [["b@x.com"]] });
  });
  for (const c of kept) {
    it(`keeps the read's provenance: ${c.name}`, () => {
      const facts = analyzer.analyze(prog(c.body, c.top === undefined ? {} : { top: c.top }));
      if (facts.diagnostics.length > 0) {
        // Refusing is sound too, but these are meant to be analyzed.
        throw new Error(JSON.stringify(facts.diagnostics));
      }
      expect(sendOf(facts).length).toBeGreaterThan(0);
      expect(tainted(facts, c.where), JSON.stringify(sendOf(facts))).toBe(true);
    });
  }
  for (const c of refused) {
    it(`refuses ${c.name}`, () => {
      const facts = analyzer.analyze(prog(c.body, c.top === undefined ? {} : { top: c.top }));
      expect(facts.ok).toBe(false);
      expect(facts.effects).toEqual([]);
      expect(
        facts.diagnostics.some((d) => c.construct.test(`${d.construct ?? ""} ${d.message}`)),
        JSON.stringify(facts.diagnostics),
      ).toBe(true);
    });
  }
});
