import { z } from "zod";
import type { ActionManifest, ResultField } from "./schema.js";

/**
 * Whether every field of an action's result is `made` (or `trusted`). A result is taken as a
 * whole (the analysis does not follow which field a value was read from), so one field a third
 * party could write makes all of it third-party data; a result with no declared fields is too.
 */
export function everyResultField(manifest: ActionManifest, flag: "made" | "trusted"): boolean {
  const { fields } = manifest.result;
  return fields.length > 0 && fields.every((field) => field[flag]);
}

const scalar = {
  string: z.string(),
  integer: z.number().int(),
  number: z.number(),
  boolean: z.boolean(),
  object: z.record(z.string(), z.unknown()),
};

function valueSchema(field: ResultField): z.ZodType {
  const one = field.type === "array" ? z.array(scalar[field.items_type ?? "object"]) : scalar[field.type];
  return field.required ? one : one.optional();
}

/**
 * The check a connector's answer meets before the program sees it: an object with the declared
 * fields of the declared types. Fields the manifest does not declare are dropped, so the program
 * gets only checked data. An action that declares no fields is passed through as it is.
 */
export function resultSchema(manifest: ActionManifest): z.ZodType<Record<string, unknown>> | undefined {
  const { fields } = manifest.result;
  if (fields.length === 0) return undefined;
  // Built once per manifest: every trusted call's answer goes through it.
  let schema = schemas.get(manifest);
  if (schema === undefined)
    schemas.set(
      manifest,
      (schema = z.object(Object.fromEntries(fields.map((field) => [field.name, valueSchema(field)]))).strip()),
    );
  return schema;
}

const schemas = new WeakMap<ActionManifest, z.ZodType<Record<string, unknown>>>();
