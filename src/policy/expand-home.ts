import { posix } from "node:path";

/**
 * Expand a leading `~` in the `under` paths of a raw (not yet validated) value constraint, so a
 * policy can say `under = "~/Sandbox"` and mean the home of whoever runs it. Only constraint
 * keys are walked: a `~` inside an `eq` or `in` value is data and stays as written.
 */
export function expandHome(raw: unknown, home: string): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const entries = Object.entries(raw);
  if (entries.length !== 1) return raw; // not one constraint: left for the schema to report
  const [key, value] = entries[0]!;
  if (key === "under" && typeof value === "string") return { under: expandPath(value, home) };
  if ((key === "all" || key === "any") && Array.isArray(value)) return { [key]: value.map((c) => expandHome(c, home)) };
  if (key === "not") return { not: expandHome(value, home) };
  return raw;
}

function expandPath(path: string, home: string): string {
  if (path === "~") return home;
  return path.startsWith("~/") ? posix.join(home, path.slice(2)) : path;
}
