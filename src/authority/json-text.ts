import { frozenJson } from "../store/index.js";

const texts = new WeakMap<object, string>();

/**
 * JSON.stringify(value), remembered for a value frozen all the way down (it cannot change, so
 * neither can its text). The store hands back one frozen decision object per distinct decision,
 * so a repeated program's answer serializes its decision once instead of for every submission.
 */
export function jsonText(value: object): string {
  let text = texts.get(value);
  if (text !== undefined) return text;
  text = JSON.stringify(value);
  if (frozenJson(value)) texts.set(value, text);
  return text;
}
