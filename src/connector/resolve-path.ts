import type { Json } from "../model/index.js";

/**
 * Follow a dotted path into JSON: object fields, numeric array indexes, and on an array of
 * `{ name, value }` objects a name (case-insensitive) picks that element's value, so
 * `message.payload.headers.To` reads Gmail's header list. Undefined when any step is missing.
 */
export function resolvePath(root: Json, path: string): Json | undefined {
  let current: Json | undefined = root;
  for (const segment of path.split(".")) {
    if (Array.isArray(current)) {
      current = /^\d+$/.test(segment) ? current[Number(segment)] : byName(current, segment);
    } else if (current !== null && typeof current === "object" && Object.hasOwn(current, segment)) {
      current = current[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

function byName(list: Json[], name: string): Json | undefined {
  const wanted = name.toLowerCase();
  for (const item of list) {
    if (
      item !== null &&
      typeof item === "object" &&
      !Array.isArray(item) &&
      typeof item.name === "string" &&
      item.name.toLowerCase() === wanted
    ) {
      return item.value;
    }
  }
  return undefined;
}
