// Builds the AssemblyScript connectors in trusted/connectors/<name>/index.ts into
// trusted/connectors/<name>.wasm (or into --out <dir>) and prints each sha256, the value pinned in
// manifests/<name>/connector.toml. The build is deterministic: same sources, same bytes.
import asc from "assemblyscript/asc";
import binaryen from "binaryen";
import { createHash } from "node:crypto";
import { readdirSync, existsSync, readFileSync, writeFileSync } from "node:fs";
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
 * The fuel meter's host function, imported from "extism:host/user" (the host's METER_FUNCTION):
 * the host throws from it once the call's deadline has passed, which ends the call where it is.
 */
const METER_IMPORT = "fuel";

/**
 * How many metered points (function entries, loop iterations, returns) pass between two calls of
 * the meter's host function. The tightest loop passes a point every ~4 ns with the meter (the
 * count itself, a global decremented and tested, costs ~2.5 ns a point: 3x on a bare arithmetic
 * loop, 5-12% on the connectors' real calls), so the host looks at the clock every few µs there,
 * a call of the host function costing ~60 ns (~1.5% of such a loop; every 100 points: ~15%). A
 * stop comes at most this many points late: 1,000 times the work between two points, a few ns in
 * AssemblyScript's loops and calls, more only for bulk memory operations.
 */
export const METER_INTERVAL = 1000;

/**
 * Compile one AssemblyScript entry file to `outFile`; throws with the compiler's messages. The stub
 * runtime is a bump allocator without a collector: a connector's run() starts each call with an
 * empty heap (trusted/connectors/shared/plugin.ts). No shrink level: with one, Array<string>#join
 * concatenates pairwise, quadratic in time and, without a collector, in memory. With `meter` (the
 * shipped connectors) the module gets a fuel meter (see addMeter).
 */
export async function buildWasm(entry, outFile, { meter = true } = {}) {
  const { error, stderr } = await asc.main([
    entry,
    "--outFile",
    outFile,
    "--runtime",
    "stub",
    "--optimizeLevel",
    "3",
    "--maximumMemory",
    String(MAX_MEMORY_PAGES),
    "--use",
    "abort=",
    "--noColors",
  ]);
  if (error) throw new Error(`asc ${relative(root, entry)}: ${error.message}\n${stderr.toString()}`);
  if (meter) writeFileSync(outFile, addMeter(readFileSync(outFile)));
  return createHash("sha256").update(readFileSync(outFile)).digest("hex");
}

// What asc's output may use (its defaults): the meter's passes must not add anything else.
const { MutableGlobals, SignExt, NontrappingFPToInt, BulkMemory, BulkMemoryOpt } = binaryen.Features;
const ASC_FEATURES = MutableGlobals | SignExt | NontrappingFPToInt | BulkMemory | BulkMemoryOpt;

/**
 * Compile a fuel meter into a module, so that the host can stop a runaway call without a watchdog
 * thread: binaryen's log-execution pass calls an imported `log_execution(id)` at every function
 * entry, loop iteration and return; that import is replaced by a function of the module that
 * counts a global down and, every METER_INTERVAL counts, calls the host's METER_IMPORT. Its id
 * argument is unused and removed (dead argument elimination): the pass numbers the points with a
 * counter that lives as long as the process, which would make the bytes depend on what was built
 * before. The meter is then inlined where binaryen finds it worth it.
 */
function addMeter(bytes) {
  const module = binaryen.readBinary(bytes);
  try {
    module.setFeatures(ASC_FEATURES);
    module.runPasses(["log-execution"]);
    module.removeFunction("log_execution");
    module.addFunctionImport("countersign_fuel", "extism:host/user", METER_IMPORT, binaryen.none, binaryen.none);
    module.addGlobal("countersign_fuel_left", binaryen.i32, true, module.i32.const(METER_INTERVAL));
    const left = () => module.global.get("countersign_fuel_left", binaryen.i32);
    module.addFunction(
      "log_execution",
      binaryen.createType([binaryen.i32]),
      binaryen.none,
      [],
      module.block(null, [
        module.global.set("countersign_fuel_left", module.i32.sub(left(), module.i32.const(1))),
        module.if(
          module.i32.eqz(left()),
          module.block(null, [
            module.global.set("countersign_fuel_left", module.i32.const(METER_INTERVAL)),
            module.call("countersign_fuel", [], binaryen.none),
          ]),
        ),
      ]),
    );
    module.runPasses(["dae", "inlining", "precompute", "vacuum"]);
    if (!module.validate()) throw new Error("the metered module does not validate");
    return module.emitBinary();
  } finally {
    module.dispose();
  }
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
