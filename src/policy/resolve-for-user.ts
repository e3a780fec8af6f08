import { posix } from "node:path";

/** What a policy's words about its user mean: their home folder and their own mail addresses. */
export interface PolicyUser {
  home: string;
  ownAddresses: readonly string[];
}

/**
 * Resolve a raw (not yet validated) value constraint for its user: a leading `~` in `under` paths
 * becomes their home, and `{ own_address = true }` the ordinary `{ in = [..] }` of their own
 * addresses (matching nothing when they have none), so that the constraint language needs no
 * notion of a user and the policy hash covers what the rules compare. Only constraint keys are
 * walked: a `~` inside an `eq` or `in` value is data and stays as written. Anything else is left
 * for the schema to report.
 */
export function resolveForUser(raw: unknown, user: PolicyUser): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const entries = Object.entries(raw);
  if (entries.length !== 1) return raw; // not one constraint: left for the schema to report
  const [key, value] = entries[0]!;
  if (key === "under" && typeof value === "string") return { under: expandPath(value, user.home) };
  if (key === "own_address" && value === true) return { in: [...user.ownAddresses] };
  if ((key === "all" || key === "any") && Array.isArray(value))
    return { [key]: value.map((c) => resolveForUser(c, user)) };
  if (key === "not") return { not: resolveForUser(value, user) };
  return raw;
}

function expandPath(path: string, home: string): string {
  if (path === "~") return home;
  return path.startsWith("~/") ? posix.join(home, path.slice(2)) : path;
}
