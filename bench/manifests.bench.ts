// Manifest loading and API generation: `countersign check` and every authority start pay for them.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";
import { generateApi } from "../src/manifest/generate-api.js";
import { loadManifests } from "../src/config/index.js";
import { packageRoot } from "../src/model/paths.js";
import { measure, table, writeSection } from "./report.js";

const dir = join(packageRoot, "manifests");
const files = readdirSync(dir).flatMap((c) =>
  readdirSync(join(dir, c))
    .filter((f) => f.endsWith(".toml"))
    .map((f) => join(dir, c, f)),
);

// Baseline: reading and parsing the same TOML files, with no validation at all.
const parseOnly = await measure(() => files.map((f) => parse(readFileSync(f, "utf8"))), { samples: 31, inner: 20 });
const load = await measure(() => loadManifests(dir), { samples: 31, inner: 20 });
const set = loadManifests(dir);
const api = await measure(() => generateApi(set), { samples: 31, inner: 200 });

const spawnMs = (args: string[]): Promise<number> =>
  measure(
    () => {
      const r = spawnSync(process.execPath, args, { cwd: packageRoot, stdio: "ignore" });
      if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}`);
    },
    { samples: 9 },
  );
const bin = join(packageRoot, "bin", "countersign.js");
const built = existsSync(join(packageRoot, "dist", "src", "cli", "bin.js"));
const node = await spawnMs(["-e", ""]);
const cold = built ? await spawnMs([bin, "manifests", "check"]) : undefined;

const ms = (n: number): string => `${n.toFixed(n < 1 ? 3 : 1)} ms`;
const rows = [
  ["what", "time", "baseline", "ratio"],
  [
    `load and validate ${files.length} shipped manifests (${set.actions.size} actions)`,
    ms(load),
    `read + TOML parse only: ${ms(parseOnly)}`,
    `${(load / parseOnly).toFixed(1)}×`,
  ],
  [
    "generate the agent API from the loaded set",
    ms(api),
    `loading the set: ${ms(load)}`,
    `${(api / load).toFixed(2)}×`,
  ],
];
if (cold !== undefined)
  rows.push([
    "`countersign manifests check` cold, whole process",
    ms(cold),
    `\`node -e ""\`: ${ms(node)}`,
    `${(cold / node).toFixed(1)}×`,
  ]);
const body = `${table(rows)}\n\nMedians. Validation includes hashing each connector's wasm; the cold start imports no TypeScript.${built ? "" : "\n\n(cold start skipped: run `npm run build` first)"}`;
writeSection("manifests", "Manifests", body);
process.stdout.write(body + "\n");
