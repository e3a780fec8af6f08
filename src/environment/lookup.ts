import { GLOBALS, INTRINSICS, type Member } from "./environment.js";

function membersOf(global: string, part: "statics" | "prototype"): Member[] {
  return GLOBALS.find((g) => g.name === global)?.[part]?.members ?? [];
}

/**
 * The names of `<global>.prototype`'s (or the global's own) members that the analyzer computes exactly on constants.
 */
export function exactMembers(global: string, part: "statics" | "prototype"): ReadonlySet<string> {
  return new Set(
    membersOf(global, part)
      .filter((m) => m.exact === true)
      .map((m) => m.name),
  );
}

/** The names of `<global>.prototype`'s members that change their receiver in place. */
export function mutatingMembers(global: string): ReadonlySet<string> {
  return new Set(
    membersOf(global, "prototype")
      .filter((m) => m.mutates === true)
      .map((m) => m.name),
  );
}

/** The globals with members of their own (Math, JSON, Object...): calls of those members are calls of built-ins. */
export function namespaces(): ReadonlySet<string> {
  return new Set(
    GLOBALS.filter((g) => g.typesOnly !== true && (g.statics?.members.length ?? 0) > 0).map((g) => g.name),
  );
}

/**
 * The names of every prototype member the environment keeps. The prototypes are frozen, so a
 * write of such a name to an object that does not have it as its own property throws (the
 * "override mistake"), where plain JavaScript would add the property.
 */
export function frozenMemberNames(): ReadonlySet<string> {
  const members = [...GLOBALS.flatMap((g) => g.prototype?.members ?? []), ...INTRINSICS.flatMap((i) => i.members)];
  return new Set(members.map((m) => m.name).filter((name) => !name.startsWith("@@")));
}
