import type { Effect } from "../model/index.js";

/** `email.send_email at 12:5`, for reasons. */
export function describeSite(effect: Pick<Effect, "op" | "site">): string {
  return `${effect.op} at ${effect.site.line}:${effect.site.column}`;
}
