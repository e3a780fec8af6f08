import type { LoadedAction } from "../manifest/index.js";
import type { ActionInput } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Json } from "../model/index.js";

function hasType(value: Json, type: ActionInput["type"] | NonNullable<ActionInput["items_type"]>): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
  }
}

/**
 * Arguments must match the action's declared inputs exactly: no unknown name, no missing required
 * one, the declared types. The inputs its `[resolve]` names may be there too, with the values the
 * wrapper read (admitCall never takes them from the program); the checks and the plugin judge them.
 */
export function checkArgs(action: LoadedAction, args: Record<string, Json>): void {
  const bad = (input: string, why: string) =>
    new CountersignError("connector_error", "connector", `${action.op}: input \`${input}\` ${why}`, {
      details: { op: action.op, input },
    });
  const inputs = new Map(action.manifest.inputs.map((i) => [i.name, i]));
  const resolved = action.manifest.resolve?.inputs ?? {};
  for (const name of Object.keys(args))
    if (!inputs.has(name) && !Object.hasOwn(resolved, name)) throw bad(name, "is not declared by the action");
  for (const input of inputs.values()) {
    const value = args[input.name];
    if (value === undefined) {
      if (input.required) throw bad(input.name, "is required");
      continue;
    }
    if (!hasType(value, input.type)) throw bad(input.name, `must be of type ${input.type}`);
    const itemsType = input.items_type;
    if (itemsType !== undefined && Array.isArray(value) && !value.every((item) => hasType(item, itemsType))) {
      throw bad(input.name, `must hold only ${itemsType} items`);
    }
  }
}
