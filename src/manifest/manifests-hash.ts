import { createHash } from "node:crypto";
import { canonicalJson } from "../constraint/index.js";
import type { Json } from "../model/index.js";
import type { ManifestSet } from "./manifest-set.js";

/**
 * The identity of a manifest set: sha256 over the canonical JSON of every connector manifest
 * (its wasm pin included) and every action manifest, by name. Where the files are, comments and
 * key order do not change it; any change to what a program may call or how it runs does.
 */
export function manifestsHash(set: ManifestSet): string {
  const sorted = <T>(map: ReadonlyMap<string, T>) =>
    [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const value = {
    connectors: sorted(set.connectors).map(([name, c]) => [name, c.manifest]),
    actions: sorted(set.actions).map(([op, a]) => [op, a.manifest]),
  };
  return createHash("sha256")
    .update(canonicalJson(JSON.parse(JSON.stringify(value)) as Json))
    .digest("hex");
}
