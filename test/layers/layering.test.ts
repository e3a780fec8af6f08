import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/model/paths.js";

const CLI = join(packageRoot, "node_modules", "dependency-cruiser", "bin", "dependency-cruise.mjs");
const CONFIG = join(packageRoot, ".dependency-cruiser.cjs");

/** Run the project's layering rules over a made-up compiled tree; the names of the rules broken. */
function broken(files: Record<string, string>): string[] {
  const root = mkdtempSync(join(tmpdir(), "countersign-layers-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const r = spawnSync(process.execPath, [CLI, "dist/src", "--config", CONFIG, "--output-type", "json"], {
    cwd: root,
    encoding: "utf8",
  });
  const report = JSON.parse(r.stdout) as { summary: { violations: { rule: { name: string } }[] } };
  return [...new Set(report.summary.violations.map((v) => v.rule.name))].sort();
}

/** `importer` imports from `imported`'s folder through that folder's index, as every cross-folder import must. */
const from = (importer: string, imported: string) => {
  const folder = imported.split("/")[0]!;
  const sameFolder = importer.split("/")[0] === folder;
  return {
    [`dist/src/${importer}.js`]: `import { x } from "../${sameFolder ? imported : `${folder}/index`}.js";\nexport const y = x;\n`,
    [`dist/src/${imported}.js`]: "export const x = 1;\n",
    ...(sameFolder ? {} : { [`dist/src/${folder}/index.js`]: `export { x } from "./${imported.split("/")[1]}.js";\n` }),
  };
};

describe("the layering rules", () => {
  it.each([
    ["constraint -> analyze", "constraint/a", "analyze/b", "constraint-imports-only-model"],
    [
      "analyze -> policy",
      "analyze/a",
      "policy/b",
      "analyze-imports-only-model-constraint-manifest-environment-trusted",
    ],
    ["analyze -> store", "analyze/a", "store/b", "analyze-imports-only-model-constraint-manifest-environment-trusted"],
    ["policy -> store", "policy/a", "store/b", "policy-imports-only-model-constraint-manifest"],
    ["policy -> config", "policy/a", "config/b", "policy-imports-only-model-constraint-manifest"],
    [
      "receipt -> authority",
      "receipt/a",
      "authority/b",
      ["only-serve-starts-the-authority", "receipt-imports-only-model-constraint"],
    ],
    ["receipt -> store", "receipt/a", "store/b", "receipt-imports-only-model-constraint"],
    [
      "connector -> policy",
      "connector/a",
      "policy/b",
      "connector-imports-only-model-constraint-manifest-receipt-store",
    ],
    ["model -> constraint", "model/a", "constraint/b", "model-imports-only-itself"],
    [
      "app -> cli",
      "app/a",
      "cli/b",
      "app-imports-only-model-constraint-manifest-analyze-policy-given-receipt-connector-config-store-sandbox",
    ],
    ["given -> store", "given/a", "store/b", "given-imports-only-model-constraint"],
    ["given -> policy", "given/a", "policy/b", "given-imports-only-model-constraint"],
    [
      "authority -> cli",
      "authority/a",
      "cli/b",
      "authority-imports-only-model-constraint-manifest-analyze-policy-receipt-connector-config-store-app",
    ],
    ["cli -> authority (but serve)", "cli/check", "authority/b", "only-serve-starts-the-authority"],
    ["mcp -> cli", "mcp/a", "cli/b", "mcp-imports-only-model-manifest-config-app"],
    ["mcp -> store", "mcp/a", "store/b", "mcp-imports-only-model-manifest-config-app"],
    [
      "mcp -> authority",
      "mcp/a",
      "authority/b",
      ["mcp-imports-only-model-manifest-config-app", "only-serve-starts-the-authority"],
    ],
  ])("refuse %s", (_, importer, imported, rule) => {
    expect(broken(from(importer, imported))).toEqual([rule].flat());
  });

  it("allow the arrows of the design", () => {
    expect(
      broken({
        ...from("policy/a", "constraint/b"),
        ...from("cli/c", "app/d"),
        ...from("config/e", "policy/f"),
        ...from("connector/g", "receipt/h"),
      }),
    ).toEqual([]);
    expect(broken({ ...from("cli/serve", "authority/a"), ...from("authority/b", "app/c") })).toEqual([]);
    expect(broken({ ...from("mcp/a", "app/b"), ...from("mcp/c", "manifest/d"), ...from("cli/mcp", "mcp/e") })).toEqual(
      [],
    );
  });

  it("refuse file and network modules in a core stage, and cycles", () => {
    expect(
      broken({ "dist/src/policy/a.js": 'import { readFileSync } from "node:fs";\nexport const y = readFileSync;\n' }),
    ).toEqual(["core-does-no-io"]);
    expect(broken({ "dist/src/manifest/a.js": 'import http from "node:http";\nexport const y = http;\n' })).toEqual([
      "core-does-no-io",
    ]);
    expect(
      broken({
        ...from("config/a", "config/b"),
        "dist/src/config/b.js": 'import { y } from "./a.js";\nexport const x = 1;\nexport const z = y;\n',
      }),
    ).toEqual(["no-circular"]);
  });

  it("refuse a module of another folder imported past its index, but for lazy loading and the light entries", () => {
    const deep = (text: string) => ({
      "dist/src/cli/a.js": text,
      "dist/src/app/b.js": "export const x = 1;\n",
      "dist/src/app/index.js": 'export { x } from "./b.js";\n',
    });
    expect(broken(deep('import { x } from "../app/b.js";\nexport const y = x;\n'))).toEqual([
      "cross-folder-through-index",
    ]);
    expect(broken(deep('export const y = () => import("../app/b.js");\n'))).toEqual([]);
    expect(
      broken({
        "dist/src/cli/a.js": 'import { x } from "../analyze/limits.js";\nexport const y = x;\n',
        "dist/src/analyze/limits.js": "export const x = 1;\n",
      }),
    ).toEqual([]);
  });
});
