// The attack end to end: an auto-approved, read-only program (reads are allowed without asking)
// tries to print countersign's secrets through the real runner, a real authority and the real fs
// connector: the approver secret (with it an agent makes its own login link and approves
// itself), the submitter token and the email connection's token.
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runHarnessForSuite } from "../run/harness.js";

const GMAIL_TOKEN = "fs-secrets-run-token";
const h = runHarnessForSuite({ gmailToken: GMAIL_TOKEN });

const SECRETS = ["approver.secret", "submitter.token", "gmail-token"];

/** Reads each path and prints what it got, or the class of the refusal. */
const reader = (paths: string[]) => `import { program } from "countersign";
import { readFile } from "trusted/fs";

export default program({
  rationale: "Read a few files.",
  guarantees: [],
  async main() {
    for (const path of ${JSON.stringify(paths)}) {
      try {
        console.log("read: " + (await readFile({ path })).content);
      } catch (e) {
        console.log("refused: " + String((e as { class: string }).class));
      }
    }
  },
});
`;

function secretValues(data: string): string[] {
  const values = SECRETS.map((name) => readFileSync(join(data, name), "utf8").trim());
  expect(values.every((v) => v.length >= 8)).toBe(true);
  expect(values).toContain(GMAIL_TOKEN);
  return values;
}

function setRoots(data: string, roots: string[]): void {
  writeFileSync(
    join(data, "connections.toml"),
    `[email]\nbase_url = "${h.gmail.url}"\ntoken_file = "${join(data, "gmail-token")}"\n\n[fs]\nroots = ${JSON.stringify(roots)}\n`,
  );
}

describe("an auto-approved read-only program and countersign's secrets", () => {
  it('with roots = ["~"] (the data directory inside): the connections are refused, nothing is read', async () => {
    const data = h.env.COUNTERSIGN_HOME!;
    const home = h.env.HOME!;
    const values = secretValues(data);
    setRoots(data, [home]);
    const report = await h.run({ source: reader(SECRETS.map((name) => join(data, name))) });
    const shown = JSON.stringify(report);
    for (const value of values) expect(shown).not.toContain(value);
    expect(report.error).toMatchObject({ class: "config_error" });
    expect(report.error?.message).toContain(`root ${home} contains the data directory`);
  });

  it("with the data directory linked from inside the root: the fs host refuses every read", async () => {
    const data = h.env.COUNTERSIGN_HOME!;
    const sandbox = join(h.env.HOME!, "Sandbox");
    const values = secretValues(data);
    setRoots(data, [sandbox]);
    symlinkSync(data, join(sandbox, "cs"));
    const report = await h.run({ source: reader(SECRETS.map((name) => join(sandbox, "cs", name))) });
    const shown = JSON.stringify(report);
    for (const value of values) expect(shown).not.toContain(value);
    expect(report.execution?.logs.map((l) => l.text)).toEqual(SECRETS.map(() => "refused: capability_denied"));
  });
});
