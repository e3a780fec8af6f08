/**
 * The canonical form of a path argument (`format = "path"`): an absolute POSIX path already in
 * its lexical normal form — no `.` or `..` segment, no empty segment (`//`), no trailing `/` but
 * the root's, no NUL, no lone surrogate. A path in another form is refused, not rewritten: `/a/b/../c` may name
 * another file than `/a/c` once symlinks count, and a person reading it should not have to work
 * out which. Symlinks themselves are the fs host's to resolve. Pure; no I/O.
 */

export type PathForm = { ok: true; canonical: string } | { ok: false; why: PathRefusal };
export type PathRefusal =
  | "not_absolute"
  | "nul"
  | "lone_surrogate"
  | "dot_segment"
  | "empty_segment"
  | "trailing_slash";

export function canonicalPath(raw: string): PathForm {
  if (!raw.startsWith("/")) return { ok: false, why: "not_absolute" };
  if (raw.includes("\0")) return { ok: false, why: "nul" };
  // The file system would get U+FFFD in its place: another name than the one checked.
  if (LONE_SURROGATE.test(raw)) return { ok: false, why: "lone_surrogate" };
  if (raw === "/") return { ok: true, canonical: raw };
  if (raw.endsWith("/")) return { ok: false, why: "trailing_slash" };
  for (const segment of raw.slice(1).split("/")) {
    if (segment === "") return { ok: false, why: "empty_segment" };
    if (segment === "." || segment === "..") return { ok: false, why: "dot_segment" };
  }
  return { ok: true, canonical: raw };
}

const LONE_SURROGATE = /\p{Cs}/u;
