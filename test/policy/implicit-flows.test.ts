// The shipped policy against programs that copy untrusted data without any value of the call
// deriving from it: they branch on each character and append constants (an implicit flow). The
// rules that guard exfiltration must also hold when the call is only influenced by such data.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { loadPolicy } from "../../src/config/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { decide } from "../../src/policy/decide.js";
import { shippedManifests } from "./helpers.js";

const set = shippedManifests();
const analyzer = createAnalyzer(set);
afterAll(() => analyzer.dispose());
const shipped = loadPolicy(join(packageRoot, "policies"), { manifests: set, home: "/home/user" });

/** A program that reads `read` and then makes `call`, with `q` holding the data copied bit by bit. */
function program(imports: string, read: string, call: string): string {
  return `import { program } from "countersign";
${imports}

export default program({
  rationale: "Check the service status.",
  async main() {
    const data = String((${read}).content ?? "");
    let q = "";
    for (const c of data) {
      if (c === "a") q += "a";
      else if (c === "b") q += "b";
      else q += "-";
    }
    ${call}
  },
});
`;
}

const decisionOf = (source: string, policy = shipped) =>
  decide(analyzer.analyze(source, { entry: "main.ts" }), policy, set);

describe("implicit flows under the shipped policy", () => {
  it("a file copied into a URL's query one branch at a time asks, though the host is listed", () => {
    const source = program(
      `import { readFile } from "trusted/fs";\nimport { get } from "trusted/http";`,
      `await readFile({ path: "/home/user/Sandbox/notes.txt" })`,
      `await get({ url: "https://api.example.com/status?q=" + q });`,
    );
    const decision = decisionOf(source);
    expect(decision.kind).toBe("ask");
    expect(decision.effects.find((e) => e.op === "http.get")).toMatchObject({
      verdict: "ask",
      rule: "http.influenced-request",
    });
  });

  it("the same copy into a URL's path asks too", () => {
    const source = program(
      `import { readFile } from "trusted/fs";\nimport { get } from "trusted/http";`,
      `await readFile({ path: "/home/user/Sandbox/notes.txt" })`,
      `await get({ url: \`https://api.example.com/v1/\${q}\` });`,
    );
    expect(decisionOf(source).effects.find((e) => e.op === "http.get")).toMatchObject({
      verdict: "ask",
      rule: "http.influenced-request",
    });
  });

  it("a web page that steers mail to myself asks", () => {
    const source = program(
      `import { get } from "trusted/http";\nimport { sendEmail } from "trusted/email";`,
      `{ content: (await get({ url: "https://api.example.com/v1/builds/latest" })).body }`,
      `if (q.startsWith("a")) await sendEmail({ to: ["me@example.com"], subject: "Build", body: "a" });`,
    );
    expect(decisionOf(source).effects.find((e) => e.op === "email.send_email")).toMatchObject({
      verdict: "ask",
      rule: "email.influenced-send",
    });
  });

  it("a write path steered by a file is held inside the sandbox even where the plain rule is widened", () => {
    const widened = { ...shipped, rules: shipped.rules.filter((r) => r.id !== "fs.write-outside-sandbox") };
    const source = program(
      `import { readFile, writeFile } from "trusted/fs";`,
      `await readFile({ path: "/home/user/Sandbox/notes.txt" })`,
      `await writeFile({ path: q === "" ? "/home/user/Sandbox/a.txt" : "/home/user/.profile", content: "x" });`,
    );
    const decision = decisionOf(source, widened);
    const write = decision.effects.find((e) => e.op === "fs.write_file");
    expect(write).toMatchObject({ verdict: "ask", rule: "fs.influenced-path-outside-sandbox" });
    expect(decision.guards).toContainEqual({ op: "fs.write_file", args: { path: { under: "/home/user/Sandbox" } } });
  });
});
