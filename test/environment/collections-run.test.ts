// Programs using Map, Set and computed indexes run in the sandbox's QuickJS realm as the analyzer
// assumed: the calls each run makes are within the facts.
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { program, run, set, texts } from "../sandbox/helpers.js";

// A loaded machine runs the first analysis slowly (the checker warms up): time is not what this tests.
const analyzer = createAnalyzer(set, { budget: { ms: 60_000 } });
afterAll(() => analyzer.dispose());

const source = program(`
    const text = String(await readFile({ path: "/in.txt" }));
    const seen = new Set<string>();
    const byFirst = new Map<string, string[]>();
    for (const word of ["bob", "ann", "bob", "al"]) {
      seen.add(word);
      const list = byFirst.get(word[0]!) ?? [];
      byFirst.set(word[0]!, [...list, word]);
    }
    const words = [...seen];
    const last = words[words.length - 1];
    const middle = words[Math.floor(words.length / 2)];
    const i = words.indexOf("ann");
    const next = words[i + 1];
    const counts: string[] = [];
    byFirst.forEach((list, key) => { counts.push(key + list.length); });
    for (const [key, list] of byFirst) console.log(key, list.join("+"));
    console.log(seen.size, seen.has("al"), last, middle, next, counts.join(","), [...byFirst.keys()].join(""), byFirst.get("z") === undefined, text.length > 0);
    if (seen.has("bob")) await sendEmail({ to: ["bob@example.com"], subject: "words", body: words.join(" ") });
`);

describe("Map, Set and computed indexes in the sandbox", () => {
  it("run there, and the run is within the analyzer's facts", async () => {
    const facts = analyzer.analyze(source);
    expect(facts.diagnostics).toEqual([]);
    const result = await run(source, { answer: async (op) => (op === "fs.read_file" ? "hello" : { ok: true }) });
    expect(result.outcome).toBe("returned");
    expect(texts(result)).toEqual(["b bob+bob", "a ann+al", "3 true al ann al b2,a2 ba true true"]);
    const sends = result.invoked.filter((c) => c.op === "email.send_email");
    expect(sends).toEqual([
      { op: "email.send_email", args: { to: ["bob@example.com"], subject: "words", body: "bob ann al" } },
    ]);
    const effect = facts.effects.find((e) => e.op === "email.send_email")!;
    expect(effect.args.to).toEqual({ kind: "const", values: [["bob@example.com"]] });
    expect(effect.count.max).toBe(1);
  });
});
