import { memoizeString } from "./string-memo.js";

/**
 * The lexical normal form of an absolute POSIX path: `.` and empty segments dropped, `..` pops
 * (and stays at `/`), no trailing slash. Null for anything that is not absolute — a relative path
 * or `~` has no meaning without a working or home directory, which a check must not guess — and
 * for a path holding NUL, which no file system call accepts. Remembered per path: a policy checks
 * the same bases and values against rule after rule.
 */
export const normalizePath: (path: string) => string | null = memoizeString((path) => {
  if (!path.startsWith("/") || path.includes("\0")) return null;
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join("/")}`;
});
