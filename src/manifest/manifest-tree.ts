import type { ManifestError } from "./manifest-error.js";

/** One TOML file of a manifest directory as read: its text, or why it could not be read. */
export type ManifestSource =
  | { rel: string; path: string; text: string }
  | { rel: string; path: string; problem: string };

/**
 * A manifest directory as read from disk (`<connector>/connector.toml`, `<connector>/<action>.toml`):
 * the checks take this, never the disk. `problems` are entries that could not be read.
 */
export interface ManifestTree {
  dir: string; // absolute
  connectors: { name: string; files: ManifestSource[] }[];
  problems: ManifestError[];
}

/** Reads a connector's wasm for its pin and exports; supplied by whoever read the tree. */
export type ReadWasm = (path: string) => { bytes: Uint8Array } | { problem: string };
