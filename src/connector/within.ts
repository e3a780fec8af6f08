import { sep } from "node:path";

/** Whether absolute path `p` is `root` itself or lies below it (both already real and normalized). */
export function within(p: string, root: string): boolean {
  if (p === root) return true;
  return p.startsWith(root.endsWith(sep) ? root : root + sep);
}
