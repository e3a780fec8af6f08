import { resultSchema, type LoadedAction } from "../manifest/index.js";
import { CountersignError, formatField } from "../model/index.js";
import type { Json } from "../model/index.js";

/**
 * A connector's answer as the program may see it: checked against the fields its manifest
 * declares (`[[result.fields]]`), the undeclared ones dropped. An answer of another shape is
 * connector_error naming the action and the field, and the program gets nothing of it.
 */
export function checkedResult(action: LoadedAction, output: Json): Json {
  const schema = resultSchema(action.manifest);
  if (schema === undefined) return output;
  const parsed = schema.safeParse(output);
  if (parsed.success) return parsed.data as Json;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.length === 0 ? "(the result)" : formatField(issue.path as (string | number)[]);
  throw new CountersignError(
    "connector_error",
    "connector",
    `${action.op}: the connector's result does not match its manifest at ${field}: ${issue.message}`,
    {
      details: { op: action.op, field, reason: "result_shape" },
    },
  );
}
