import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildWasm, connectorNames } from "../../scripts/build-connectors.mjs";
import { packageRoot } from "../../src/model/paths.js";
import { shippedManifests, tempDir } from "./fixtures.js";

describe("built-in connectors", () => {
  it("rebuild to the committed bytes, which match the pins in their manifests", async () => {
    const set = shippedManifests();
    const out = tempDir();
    expect(connectorNames()).toEqual(["email", "fs", "http"]);
    for (const name of connectorNames()) {
      const rebuilt = await buildWasm(
        join(packageRoot, "trusted", "connectors", name, "index.ts"),
        join(out, `${name}.wasm`),
      );
      const committed = createHash("sha256")
        .update(readFileSync(join(packageRoot, "trusted", "connectors", `${name}.wasm`)))
        .digest("hex");
      expect(rebuilt, `${name}.wasm is stale: run npm run build:connectors`).toBe(committed);
      expect(set.connectors.get(name)?.manifest.sha256, `manifests/${name}/connector.toml pins another hash`).toBe(
        committed,
      );
    }
  }, 60_000);
});
