import { normalizePath } from "./normalize-path.js";

/** Whether `path` is `base` or inside it, both normalized first; `/ab` is not under `/a`. */
export function isPathUnder(path: string, base: string): boolean {
  const p = normalizePath(path);
  const b = normalizePath(base);
  if (p === null || b === null) return false;
  return b === "/" || p === b || p.startsWith(`${b}/`);
}
