import { matchOp } from "../constraint/index.js";
import type { Facts, HeldValue } from "../model/index.js";
import { describeHeld } from "./quarantine-value.js";

/** The free text a run gives back beside its value: console lines and the error it let escape. */
export interface RunText {
  logs: { stream: "log" | "error"; text: string }[];
  thrown?: { name: string; message: string; class?: string | undefined };
}

/** Error names the engine itself gives; any other name was written by the program and is withheld. */
const ENGINE_ERROR_NAMES = new Set([
  "Error",
  "TypeError",
  "RangeError",
  "SyntaxError",
  "ReferenceError",
  "EvalError",
  "URIError",
  "AggregateError",
  "InternalError",
  "CountersignError",
]);

/**
 * Logs and a thrown message are text the analysis does not follow part by part: a program that
 * read a handle op's result, or whose value had a part held back, could print the data it would
 * not be shown. Then each log line and the thrown message are held too, the agent seeing a handle
 * description (as JSON text) in their place. `held` is what quarantineValue held of the value.
 */
export function withheldText<T extends RunText>(
  text: T,
  facts: Pick<Facts, "effects">,
  held: readonly HeldValue[],
  handleOps: readonly string[],
  mintId: () => string,
): { shown: T; held: HeldValue[] } {
  const read = facts.effects.map((e) => e.op).filter((op) => handleOps.some((pattern) => matchOp(pattern, op)));
  if (read.length === 0 && held.length === 0) return { shown: text, held: [] };
  const from = [...new Set([...read, ...held.flatMap((h) => h.from)])].sort();
  const withheld: HeldValue[] = [];
  const hold = (value: string, path: string): string => {
    const id = `h_${mintId()}`;
    withheld.push({ id, value, from, path });
    return JSON.stringify(describeHeld(id, value, from));
  };
  const logs = text.logs.map((line, i) => ({ ...line, text: hold(line.text, `logs[${i}]`) }));
  const thrown =
    text.thrown === undefined
      ? undefined
      : {
          ...text.thrown,
          name: ENGINE_ERROR_NAMES.has(text.thrown.name) ? text.thrown.name : "Error",
          message: hold(text.thrown.message, "thrown"),
        };
  return { shown: { ...text, logs, ...(thrown === undefined ? {} : { thrown }) }, held: withheld };
}
