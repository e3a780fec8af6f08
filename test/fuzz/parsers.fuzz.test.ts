// Fuzz the manifest and policy parsers with mutated copies of the shipped files: every input ends
// as a loaded set or a list of problems, each naming a file and a line inside it; nothing throws.
import fc from "fast-check";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFileBytes } from "../../src/config/index.js";
import { checkManifestTree, type ManifestTree } from "../../src/manifest/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { checkPolicySources } from "../../src/policy/index.js";
import { shippedManifests } from "../policy/helpers.js";
import { applyEdits, fuzzParameters, fuzzTimeout, textEdit, TOML_PIECES } from "./fuzz.js";

const edits = fc.array(textEdit(TOML_PIECES), { minLength: 1, maxLength: 4 });
const lineCount = (text: string) => text.split("\n").length;

describe("fuzz: policy files", () => {
  const file = join(packageRoot, "policies", "default.toml");
  const original = readFileSync(file, "utf8");
  const manifests = shippedManifests();

  it(
    "a mutated policy loads or is refused with problems on real lines, never a throw",
    () => {
      fc.assert(
        fc.property(edits, (e) => {
          const text = applyEdits(original, e);
          const { policy, problems } = checkPolicySources(join(packageRoot, "policies"), [{ file, text }], {
            manifests,
            home: "/home/me",
          });
          expect(policy === undefined).toBe(problems.length > 0);
          for (const p of problems) {
            expect(p.file).toBe(file);
            expect(typeof p.message).toBe("string");
            if (p.line !== undefined)
              expect(p.line).toBeGreaterThanOrEqual(1), expect(p.line).toBeLessThanOrEqual(lineCount(text));
          }
          for (const rule of policy?.rules ?? []) expect(rule.id.length).toBeGreaterThan(0);
        }),
        fuzzParameters(1500),
      );
    },
    fuzzTimeout(60_000),
  );
});

describe("fuzz: manifest trees", () => {
  const dir = join(packageRoot, "manifests");
  const files = readdirSync(dir).flatMap((c) =>
    readdirSync(join(dir, c)).map((f) => ({ connector: c, rel: `${c}/${f}`, path: join(dir, c, f) })),
  );
  const texts = new Map(files.map((f) => [f.rel, readFileSync(f.path, "utf8")]));
  const wasm = new Map<string, ReturnType<typeof readFileBytes>>();
  const readWasm = (path: string) => wasm.get(path) ?? (wasm.set(path, readFileBytes(path)), wasm.get(path)!);
  const mutation = fc.array(fc.record({ file: fc.constantFrom(...files.map((f) => f.rel)), edits }), {
    minLength: 1,
    maxLength: 3,
  });

  it(
    "a mutated manifest set loads or is refused with errors on real lines, never a throw",
    () => {
      fc.assert(
        fc.property(mutation, (mutations) => {
          const current = new Map(texts);
          for (const m of mutations) current.set(m.file, applyEdits(current.get(m.file)!, m.edits));
          const connectors = [...new Set(files.map((f) => f.connector))].map((name) => ({
            name,
            files: files
              .filter((f) => f.connector === name)
              .map((f) => ({ rel: f.rel, path: f.path, text: current.get(f.rel)! })),
          }));
          const tree: ManifestTree = { dir, connectors, problems: [] };
          const { set, errors } = checkManifestTree(tree, readWasm);
          expect(set === undefined).toBe(errors.length > 0);
          for (const error of errors) {
            expect(current.has(error.file) || error.file.endsWith("connector.toml")).toBe(true);
            if (error.line !== undefined && current.has(error.file)) {
              expect(error.line).toBeGreaterThanOrEqual(1);
              expect(error.line).toBeLessThanOrEqual(lineCount(current.get(error.file)!));
            }
          }
        }),
        fuzzParameters(1000),
      );
    },
    fuzzTimeout(60_000),
  );
});
