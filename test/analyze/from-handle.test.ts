import { afterAll, describe, expect, it } from "vitest";
import type { Facts } from "../../src/model/index.js";
import { programOf, sharedAnalyzer } from "./harness.js";

const analyzer = sharedAnalyzer();
afterAll(() => analyzer.dispose());

const TOP = `import { fromHandle } from "countersign";\n`;
const analyze = (main: string): Facts => analyzer.analyze(programOf({ top: TOP, main }));
const sendBody = (facts: Facts) => facts.effects.find((e) => e.op === "email.send_email")!.sources!.body!;

describe("fromHandle in the analysis", () => {
  it("gives an untrusted value that names its handle", () => {
    const facts = analyze(
      `const v = await fromHandle("h_abc");\n await sendEmail({ to: ["a@x.com"], subject: "s", body: String(v) });\n return v;`,
    );
    expect(facts.diagnostics).toEqual([]);
    expect(sendBody(facts)).toEqual([{ source: "quarantined result h_abc", untrusted: true, handle: "h_abc" }]);
    expect(facts.result!.parts).toEqual([{ path: "$", from: [], untrusted: true, handles: ["h_abc"] }]);
  });

  it("an id that is not a literal is refused: the analysis must know which handle", () => {
    const facts = analyze(`const id = "h_" + "abc";\n return await fromHandle(id);`);
    expect(facts.ok).toBe(false);
    expect(facts.diagnostics).toEqual([
      expect.objectContaining({ code: "refused_construct", message: expect.stringMatching(/string literal/) }),
    ]);
  });

  it("a literal that is no handle id is refused", () => {
    expect(analyze(`return await fromHandle("abc");`).ok).toBe(false);
  });

  it("fromHandle passed around as a value is refused", () => {
    expect(analyze(`const f = fromHandle;\n return await f("h_abc");`).ok).toBe(false);
  });

  describe("laundering the held value stays untrusted", () => {
    it("through string operations, JSON and a template", () => {
      const facts = analyze(
        `const v = await fromHandle("h_abc");\n const s = JSON.parse(JSON.stringify(v)) as string;\n await sendEmail({ to: ["a@x.com"], subject: \`re: \${s.toUpperCase().slice(0, 5)}\`, body: "fixed" });`,
      );
      const subject = facts.effects[0]!.sources!.subject!;
      expect(subject.some((p) => p.untrusted && p.handle === "h_abc")).toBe(true);
    });

    it("through a branch on it: the call is influenced by the handle", () => {
      const facts = analyze(
        `const v = await fromHandle("h_abc");\n if (v === "yes") await sendEmail({ to: ["a@x.com"], subject: "s", body: "b" });`,
      );
      expect(facts.effects[0]!.influencedBy!.some((p) => p.handle === "h_abc" && p.untrusted)).toBe(true);
    });

    it("through a caught error", () => {
      const facts = analyze(
        `let x = "ok";\n try { const v = await fromHandle("h_abc"); if (v) throw new Error("e"); } catch { x = "caught"; }\n await sendEmail({ to: ["a@x.com"], subject: x, body: "b" });`,
      );
      expect(facts.effects[0]!.influencedBy!.some((p) => p.handle === "h_abc")).toBe(true);
    });
  });
});
