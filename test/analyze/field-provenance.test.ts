import { afterAll, describe, expect, it } from "vitest";
import type { Provenance } from "../../src/model/index.js";
import { provenanceOf } from "../../src/constraint/index.js";
import { createAnalyzer } from "../../src/analyze/index.js";
import { CREATE_ISSUE, withAgent } from "../support/agent-manifests.js";
import { programOf, sharedAnalyzer } from "./harness.js";
import { STEP_BUDGET } from "./support/step-budget.js";

const analyzer = sharedAnalyzer();
afterAll(() => analyzer.dispose());

const BANK = `const r = await get({ url: "https://api.bank.example/payee/1" });\n const p = JSON.parse(r.body) as Payee;`;
const TOP = `type Payee = { iban: string; memo: string; payee: { iban: string }; items: { iban: string }[]; "i b": string; [key: string]: unknown };\n`;

/** The sources of the `to` of the one sendEmail the program makes, that are results of http.get. */
function sourcesOfTo(main: string): Provenance[] {
  const facts = analyzer.analyze(programOf({ top: TOP, main }));
  expect(facts.diagnostics).toEqual([]);
  const send = facts.effects.find((e) => e.op === "email.send_email")!;
  return provenanceOf(send.args.to!).filter((p) => p.op === "http.get");
}

const send = (to: string) => `await sendEmail({ to: [String(${to})], subject: "s", body: "b" });`;

describe("a field read from an op's result carries its path", () => {
  it("r.x names the field", () => {
    const [p] = sourcesOfTo(`const r = await get({ url: "https://api.bank.example/x" });\n ${send("String(r.body)")}`);
    expect(p).toMatchObject({ op: "http.get", path: "$.body", untrusted: true });
  });
  const forms: [string, string, string][] = [
    ["a field of the parsed body", `${BANK}\n ${send("p.iban")}`, "$.body.iban"],
    ["a nested field", `${BANK}\n ${send("p.payee.iban")}`, "$.body.payee.iban"],
    ["an element of an array", `${BANK}\n ${send("p.items[0]!.iban")}`, "$.body.items[*].iban"],
    ["a constant key", `${BANK}\n ${send('p["iban"]')}`, "$.body.iban"],
    ["a field that is no identifier", `${BANK}\n ${send('p["i b"]')}`, '$.body["i b"]'],
    ["optional chaining", `${BANK}\n ${send("p?.payee?.iban")}`, "$.body.payee.iban"],
    ["destructuring", `${BANK}\n const { payee: { iban } } = p;\n ${send("iban")}`, "$.body.payee.iban"],
    ["a field through a record of the program's", `${BANK}\n const o = { a: p.iban };\n ${send("o.a")}`, "$.body.iban"],
  ];
  for (const [how, main, path] of forms) {
    it(`${how}: ${path}`, () => {
      expect(sourcesOfTo(main).map((p) => p.path)).toEqual([path]);
    });
  }
});

describe("an access the analysis cannot name keeps the parent's path (an agent laundering $.memo as $.iban)", () => {
  const forms: [string, string, string[]][] = [
    ["a spread copy", `${BANK}\n const o = { ...p, iban: p.memo };\n ${send("o.iban")}`, ["$.body", "$.body.memo"]],
    ["a spread copy read for another field", `${BANK}\n const o = { ...p };\n ${send("o.iban")}`, ["$.body"]],
    ["Object.values", `${BANK}\n ${send("Object.values(p)[0]")}`, ["$.body"]],
    ["an array of fields", `${BANK}\n const xs = [p.memo, p.iban];\n ${send("xs[1]")}`, ["$.body.memo", "$.body.iban"]],
    [
      "iteration over the entries",
      `${BANK}\n let v: unknown = ""; for (const [k, x] of Object.entries(p)) if (k === "iban") v = x;\n ${send("v")}`,
      ["$.body"],
    ],
    [
      "a JSON round trip",
      `${BANK}\n const q = JSON.parse(JSON.stringify(p)) as Payee;\n ${send("q.iban")}`,
      ["$.body"],
    ],
    [
      "a JSON round trip of the whole result",
      `const r = await get({ url: "https://api.bank.example/x" });\n const q = JSON.parse(JSON.stringify(r)) as { body: string };\n ${send("q.body")}`,
      ["$"],
    ],
    ["destructuring with rest", `${BANK}\n const { memo, ...rest } = p;\n ${send("rest.iban")}`, ["$.body"]],
    [
      "a string op on the parent",
      `const r = await get({ url: "https://api.bank.example/x" });\n ${send("String(r.body).slice(0, 5)")}`,
      ["$.body"],
    ],
    ["a field written over", `${BANK}\n p.iban = p.memo;\n ${send("p.iban")}`, ["$"]],
  ];
  for (const [how, main, paths] of forms) {
    it(`${how}: ${paths.join(", ")}`, () => {
      const sources = sourcesOfTo(main);
      expect(sources.map((p) => p.path ?? "$").sort()).toEqual([...paths].sort());
    });
  }
});

describe("a key the analysis cannot name", () => {
  const refused: [string, string][] = [
    ["a computed key", `${BANK}\n const k = String(p.memo);\n ${send("p[k]")}`],
    [
      "a key chosen between two fields",
      `${BANK}\n const k = String(p.memo) === "x" ? "iban" : "memo";\n ${send("p[k]")}`,
    ],
    [
      "iteration over the keys",
      `${BANK}\n let v: unknown = ""; for (const k of Object.keys(p)) v = p[k];\n ${send("v")}`,
    ],
    ["Object.assign", `${BANK}\n const o = Object.assign({}, p, { iban: p.memo });\n ${send("o.iban")}`],
  ];
  for (const [how, main] of refused) {
    it(`${how}: the program is refused`, () => {
      const facts = analyzer.analyze(programOf({ top: TOP, main }));
      expect(facts.ok).toBe(false);
    });
  }
});

describe("the host of a call with a url", () => {
  const hostOf = (url: string) =>
    sourcesOfTo(`const r = await get({ url: ${url} });\n ${send("String(r.body)")}`)[0]!.host;
  it("a constant url gives its host, lower case, without the default port", () => {
    expect(hostOf(`"https://API.Bank.example/x"`)).toBe("api.bank.example");
    expect(hostOf(`"https://api.bank.example:443/x"`)).toBe("api.bank.example");
    expect(hostOf(`"https://api.bank.example:8443/x"`)).toBe("api.bank.example:8443");
  });
  it("one of several constant urls on the same host", () => {
    expect(hostOf(`Date.now() > 0 ? "https://api.bank.example/a" : "https://api.bank.example/b"`)).toBe(
      "api.bank.example",
    );
  });
  it("a url with a known prefix gives the prefix's host", () => {
    expect(hostOf("`https://api.bank.example/payee/${String(Date.now())}`")).toBe("api.bank.example");
  });
  it("an unknown host gives none", () => {
    expect(hostOf("`https://api.bank.example${String(Date.now())}/x`")).toBeUndefined();
    expect(hostOf(`Date.now() > 0 ? "https://api.bank.example/a" : "https://evil.example/b"`)).toBeUndefined();
    expect(hostOf("`https://${String(Date.now())}/x`")).toBeUndefined();
  });
});

describe("an agent action's url input", () => {
  const RELAY = CREATE_ISSUE.replace('name = "create_issue"', 'name = "relay"')
    .replace('name = "repo"', 'name = "url"')
    .replace("${args.repo}", "x");
  const set = withAgent([{ name: "relay.toml", text: RELAY }], { hosts: { http: ["api.github.com:443"] }, roots: {} });
  const agentAnalyzer = createAnalyzer(set, { budget: STEP_BUDGET });
  afterAll(() => agentAnalyzer.dispose());

  it("says nothing of where the action went: what it does with the input is the agent's word", () => {
    const facts = agentAnalyzer.analyze(`import { program } from "countersign";
import { relay } from "trusted/agent";
import { sendEmail } from "trusted/email";
export default program({
  rationale: "r",
  async main() {
    const r = await relay({ url: "https://api.bank.example/", payload: "" });
    await sendEmail({ to: [String(r.body)], subject: "s", body: "b" });
  },
});
`);
    expect(facts.diagnostics).toEqual([]);
    const sources = provenanceOf(facts.effects.find((e) => e.op === "email.send_email")!.args.to!);
    expect(sources.find((p) => p.op === "agent.relay")).toMatchObject({ path: "$.body", untrusted: true });
    expect(sources.every((p) => p.host === undefined)).toBe(true);
    expect(sources.some((p) => p.op === "http.post" && p.untrusted)).toBe(true); // its step's answer, untrusted
  });
});
