// Builds the AssemblyScript connectors in trusted/connectors/<name>/index.ts into
// trusted/connectors/<name>.wasm (or into --out <dir>) and prints each sha256, the value pinned in
// manifests/<name>/connector.toml. The build is deterministic: same sources, same bytes.
import asc from "assemblyscript/asc";
import { createHash } from "node:crypto";
import { readdirSync, existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = fileURLToPath(new URL("../", import.meta.url));
const sources = join(root, "trusted", "connectors");

/**
 * Linear memory may grow to 256 pages (16 MiB) and no further: Extism 1.0.3 has no memory option,
 * so the bound is declared in the module itself (and the host refuses modules without one).
 */
export const MAX_MEMORY_PAGES = 256;

/**
 * Compile one AssemblyScript entry file to `outFile`; throws with the compiler's messages. The stub
 * runtime is a bump allocator without a collector: a connector's run() starts each call with an
 * empty heap (trusted/connectors/shared/plugin.ts). No shrink level: with one, Array<string>#join
 * concatenates pairwise, quadratic in time and, without a collector, in memory.
 */
export async function buildWasm(entry, outFile) {
  const { error, stderr } = await asc.main([
    entry,
    "--outFile", outFile,
    "--runtime", "stub",
    "--optimizeLevel", "3",
    "--maximumMemory", String(MAX_MEMORY_PAGES),
    "--use", "abort=",
    "--noColors",
  ]);
  if (error) throw new Error(`asc ${relative(root, entry)}: ${error.message}\n${stderr.toString()}`);
  return createHash("sha256").update(readFileSync(outFile)).digest("hex");
}

/** Every connector: each directory of trusted/connectors/ that has an index.ts. */
export function connectorNames() {
  return readdirSync(sources, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(sources, d.name, "index.ts")))
    .map((d) => d.name)
    .sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  const out = values.out ?? sources;
  for (const name of connectorNames()) {
    const hash = await buildWasm(join(sources, name, "index.ts"), join(out, `${name}.wasm`));
    process.stdout.write(`${name}.wasm  sha256 ${hash}\n`);
  }
}
