import { lstatSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  checkManifestTree,
  manifestsError,
  type ManifestCheck,
  type ManifestError,
  type ManifestSet,
  type ManifestTree,
} from "../manifest/index.js";
import { packageRoot } from "../model/index.js";
import { listDir } from "./list-dir.js";
import { readFileBytes, readTextFile } from "./read-file.js";

export interface ManifestDirOptions {
  /** The directory is the user's own (`<data dir>/manifests`), which replaces the shipped manifests. */
  own?: boolean;
}

/**
 * Read a manifest directory (`<connector>/connector.toml`, `<connector>/<action>.toml`) and check
 * every file and the rules between them. An entry that cannot be read (a directory named x.toml,
 * a broken link, a file without permission) is an error naming it, reported with all the others.
 */
export function checkManifests(dir: string, options: ManifestDirOptions = {}): ManifestCheck {
  const tree = readManifestTree(resolve(dir));
  if (tree.connectors.length === 0 && tree.problems.length === 0) {
    const message = options.own
      ? `holds no manifests; because it exists it replaces the shipped manifests (${join(packageRoot, "manifests")}): copy those into it, or remove it`
      : "holds no manifests: expected <connector>/connector.toml and <connector>/<action>.toml";
    return { errors: [{ file: ".", field: "", message }], connectors: 0, actions: 0 };
  }
  return checkManifestTree(tree, readFileBytes);
}

/** `checkManifests`, throwing one config_error whose `details.errors` lists every problem. */
export function loadManifests(dir: string, options: ManifestDirOptions = {}): ManifestSet {
  const { set, errors } = checkManifests(dir, options);
  if (set !== undefined) return set;
  throw manifestsError(resolve(dir), errors);
}

function readManifestTree(root: string): ManifestTree {
  const tree: ManifestTree = { dir: root, connectors: [], problems: [] };
  const problem = (file: string, message: string): void =>
    void tree.problems.push({ file, field: "", message } satisfies ManifestError);
  const listing = listDir(root);
  if ("problem" in listing) {
    problem(".", `cannot read the manifest directory: ${listing.problem}`);
    return tree;
  }
  for (const entry of listing.names) {
    const path = join(root, entry);
    const kind = kindOf(path);
    if (kind === "broken link") {
      problem(entry, "is a broken symbolic link (its target does not exist)");
    } else if (kind !== "directory") {
      if (entry.endsWith(".toml"))
        problem(entry, "manifests belong in a connector directory: <connector>/<action>.toml");
    } else {
      const inner = listDir(path);
      if ("problem" in inner) {
        problem(entry, `cannot read the connector directory: ${inner.problem}`);
        continue;
      }
      const tomls = inner.names.filter((name) => name.endsWith(".toml"));
      if (tomls.length === 0) continue;
      const files = tomls.map((name) => {
        const rel = `${entry}/${name}`;
        const file = join(path, name);
        const read = readTextFile(file);
        return "problem" in read ? { rel, path: file, problem: read.problem } : { rel, path: file, text: read.text };
      });
      tree.connectors.push({ name: entry, files });
    }
  }
  return tree;
}

function kindOf(path: string): "directory" | "other" | "broken link" {
  try {
    return statSync(path).isDirectory() ? "directory" : "other";
  } catch {
    try {
      return lstatSync(path).isSymbolicLink() ? "broken link" : "other";
    } catch {
      return "other";
    }
  }
}
