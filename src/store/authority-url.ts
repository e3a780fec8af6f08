import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The URL the data directory's authority last served at (authority.json), if it ever did. Read
 * without the file's full schema: `check` looks it up on every run, and this keeps it from
 * loading the receipt modules. A file that is not valid JSON or holds no http(s) URL answers
 * undefined here; the commands that trust the file's keys read it whole and say what is wrong.
 */
export function localAuthorityUrl(home: string): string | undefined {
  try {
    const url = (JSON.parse(readFileSync(join(home, "authority.json"), "utf8")) as { url?: unknown }).url;
    return typeof url === "string" && /^https?:\/\//.test(url) ? url : undefined;
  } catch {
    return undefined;
  }
}
