import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { CountersignError } from "../model/errors-plain.js"; // a light entry, as in command.ts

/** A program file's bytes as they are: the analyzer applies the one UTF-8 rule and hashes exactly these. */
export function readSource(path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new CountersignError(
      "usage_error",
      "cli",
      `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** An agent manifest's text; one that cannot be read, or is not UTF-8, is a usage error naming it. */
function readManifestText(path: string): string {
  const bytes = readSource(path);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new CountersignError("usage_error", "cli", `${path} is not UTF-8 text`);
  }
}

/** The agent manifests named by `--manifest` (repeatable), as they go with the program to the authority. */
export function readManifests(paths: readonly string[] | undefined, cwd: string): { name: string; text: string }[] {
  return (paths ?? []).map((path) => ({ name: path, text: readManifestText(resolve(cwd, path)) }));
}
