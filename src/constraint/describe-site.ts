import type { Effect } from "../model/index.js";

/** `email.send_email at 12:5`, for reasons. */
export function describeSite(effect: Pick<Effect, "op" | "site">): string {
  return `${effect.op} at ${effect.site.line}:${effect.site.column}`;
}

/** Why a selected call's input that the call does not pass leaves a constraint open. */
export function missingWhy(e: Effect, input: string, missing: "resolved" | "unchecked"): string {
  return missing === "resolved"
    ? `${describeSite(e)}: ${input} is read by the trusted wrapper before each call and checked then`
    : `${describeSite(e)} has no ${input} argument to check, so its calls are refused at run time`;
}
