// The split of the suite into its unit and integration projects (test/projects.ts) against what
// each test file's source shows it does, so that the unit project stays in-process and nothing
// goes to the integration project without a reason.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/model/paths.js";
import { INTEGRATION_FILES, integrationFiles, type IntegrationReason } from "../projects.js";

/** How a file's source shows each reason, directly or through the test helper that does it. */
const SIGNS: Record<Exclude<IntegrationReason, "campaigns" | "limits">, RegExp> = {
  chromium: /"playwright-core"/,
  dist: /"dist", "src"|\/world\.js"/, // the attack world runs bin/countersign.js
  childProcesses:
    /"node:child_process"|\/client\/stdio\.js"|\/serve-process\.js"|\/processes\.js"|\/tmux\.js"|\/tmpfs\.js"|\/world\.js"/,
  postgres: /"postgres"|\bDIALECTS\b|\bfreshDatabase\b|\bstartCluster\b/,
  authority:
    /\bstartTestAuthority\b|\bauthorityForSuite\b|\brunHarnessForSuite\b|\bstartRunHarness\b|\bstartAuthority\(/,
  builds: /\bbuildWasm\(|\bbuildTestPlugin\(/, // AssemblyScript to WebAssembly, at test time
};

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".test.ts") ? [relative(packageRoot, path)] : [];
  });
}

function signsOf(file: string): string[] {
  const source = readFileSync(join(packageRoot, file), "utf8");
  return Object.entries(SIGNS).flatMap(([reason, sign]) => (sign.test(source) ? [reason] : []));
}

describe("the unit and integration projects", () => {
  const self = relative(packageRoot, import.meta.filename); // its own source spells every sign
  const all = testFiles(join(packageRoot, "test")).filter((file) => file !== self);

  it("lists each integration file once, and only files that exist", () => {
    expect(new Set(integrationFiles).size).toBe(integrationFiles.length);
    expect(integrationFiles.filter((file) => !existsSync(join(packageRoot, file)))).toEqual([]);
  });

  it("lists every file that starts processes, PostgreSQL, Chromium, the built package or an authority, or builds", () => {
    const listed = new Set(integrationFiles);
    expect(all.filter((file) => !listed.has(file) && signsOf(file).length > 0)).toEqual([]);
  });

  it("lists each file under a reason its source shows", () => {
    const unfounded = Object.entries(INTEGRATION_FILES).flatMap(([reason, files]) =>
      reason === "campaigns" || reason === "limits"
        ? []
        : files.filter((file) => !signsOf(file).includes(reason)).map((file) => `${reason}: ${file}`),
    );
    expect(unfounded).toEqual([]);
  });

  it("sees the signs it looks for", () => {
    expect(signsOf("test/authority/ui/browser.test.ts")).toEqual(expect.arrayContaining(["chromium", "authority"]));
    expect(signsOf("test/store/crash.test.ts")).toEqual(expect.arrayContaining(["childProcesses", "postgres"]));
    expect(signsOf("test/e2e/attacks/urls.test.ts")).toEqual(expect.arrayContaining(["dist", "childProcesses"]));
    expect(signsOf("test/mcp/readme-config.test.ts")).toContain("childProcesses"); // through the SDK's stdio client
    expect(signsOf("test/constraint/holds.test.ts")).toEqual([]);
    expect(signsOf("test/connector/build.test.ts")).toContain("builds");
  });
});
