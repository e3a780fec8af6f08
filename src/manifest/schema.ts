import { z } from "zod";

/**
 * Shapes of the TOML files in manifests/ (docs/architecture.md section 5). These check one file alone;
 * rules that need several files (interpolation references, preview ops, hash pins, duplicates)
 * live in the loader's cross-file validation.
 */

const identifier = z.string().regex(/^[a-z][a-z0-9_]*$/, "must be lower_snake_case");
const semver = z
  .string()
  .regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, "must be a SemVer version like 1.0.0");

export const InputType = z.enum(["string", "integer", "number", "boolean", "array", "object"]);
export type InputType = z.infer<typeof InputType>;
export const ItemsType = z.enum(["string", "integer", "number", "boolean", "object"]);
/**
 * The canonical form a string input is put in by the trusted wrapper before any check, and sent
 * in (src/connector/canonical-args.ts): `url` (WHATWG href), `path` (lexical normal form),
 * `email` (canonical address). On an array input it applies to every item.
 */
export const InputFormat = z.enum(["url", "path", "email"]);

/** What an input and a result field both declare: the value's name, type and meaning. */
const valueField = {
  name: identifier,
  type: InputType,
  required: z.boolean().default(true),
  description: z.string().min(1),
  items_type: ItemsType.optional(),
  format: InputFormat.optional(),
};

type ValueField = { type: InputType; items_type?: z.infer<typeof ItemsType> | undefined; format?: unknown };

/** The type rules an input and a result field share; `what` names them in the messages ("inputs"). */
function checkValueType(what: string, field: ValueField, ctx: z.RefinementCtx): void {
  if (field.items_type !== undefined && field.type !== "array") {
    ctx.addIssue({ code: "custom", path: ["items_type"], message: `items_type is only allowed on array ${what}` });
  }
  if (
    field.format !== undefined &&
    field.type !== "string" &&
    !(field.type === "array" && field.items_type === "string")
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["format"],
      message: `format is only allowed on string ${what} and arrays of strings`,
    });
  }
  if (field.type === "array" && field.items_type === undefined) {
    ctx.addIssue({ code: "custom", path: ["items_type"], message: `array ${what} must declare items_type` });
  }
}

export const ActionInput = z
  .object({
    ...valueField,
    label: z.string().min(1).optional(),
    multiline: z.boolean().optional(),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.multiline !== undefined && input.type !== "string") {
      ctx.addIssue({ code: "custom", path: ["multiline"], message: "multiline is only allowed on string inputs" });
    }
    checkValueType("inputs", input, ctx);
  });
export type ActionInput = z.infer<typeof ActionInput>;

/** String values may hold `${args.X}` or `${step.field}` references, resolved at execution. */
export const ExecuteStep = z
  .object({
    id: identifier,
    connector: identifier,
    op: identifier,
    inputs: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
export type ExecuteStep = z.infer<typeof ExecuteStep>;

export const PreviewSpec = z
  .object({
    op: identifier,
    args: z.record(z.string(), z.unknown()).default({}),
    render: z
      .record(z.string(), z.string().min(1))
      .refine((render) => Object.keys(render).length > 0, "must name at least one field to show"),
    multiline: z.array(z.string()).default([]),
  })
  .strict();
export type PreviewSpec = z.infer<typeof PreviewSpec>;

/**
 * `[resolve]`: inputs the call does not show, read before every call by the trusted wrapper
 * through a read-only `op` of the same connector (`args` fill it from the call's inputs), each
 * input named with the dotted path of its value in that op's output. The checks (grants,
 * guarantees, guards) see them as inputs of the call, and the [[execute]] steps get the values
 * that were checked (`${args.<name>}`), so what runs is what was checked.
 */
export const ResolveSpec = z
  .object({
    op: identifier,
    args: z.record(z.string(), z.unknown()).default({}),
    inputs: z
      .record(
        identifier,
        z.string().regex(/^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/, "must be a dotted path such as message.to"),
      )
      .refine((inputs) => Object.keys(inputs).length > 0, "must name at least one input"),
  })
  .strict();
export type ResolveSpec = z.infer<typeof ResolveSpec>;

/**
 * One field of what an action returns, in the inputs' vocabulary. The trusted wrapper checks a
 * connector's answer against these before the program sees it, and the generated API types it.
 * A field is data from the outside world unless it says otherwise: `made = true`, it describes
 * what the call itself made (a draft's id); `trusted = true`, it is the user's own data (a
 * listing of one's own sandbox). The analysis takes a result as made or trusted only when every
 * field of it is.
 */
export const ResultField = z
  .object({
    ...valueField,
    made: z.boolean().default(false),
    trusted: z.boolean().default(false),
  })
  .strict()
  .superRefine((field, ctx) => checkValueType("result fields", field, ctx));
export type ResultField = z.infer<typeof ResultField>;

/** `[result]`: the fields of what the action returns (`[[result.fields]]`); nothing else may be in it. */
export const ActionResult = z.object({ fields: z.array(ResultField).default([]) }).strict();
export type ActionResult = z.infer<typeof ActionResult>;

export const ActionManifest = z
  .object({
    name: identifier,
    version: semver,
    description: z.string().min(1),
    idempotent: z.boolean(),
    inputs: z.array(ActionInput).default([]),
    execute: z.array(ExecuteStep).min(1, "an action needs at least one [[execute]] step"),
    resolve: ResolveSpec.optional(),
    approval: z
      .object({ required: z.boolean(), preview: PreviewSpec.optional() })
      .strict()
      .default({ required: false }),
    result: ActionResult.default({ fields: [] }),
  })
  .strict();
export type ActionManifest = z.infer<typeof ActionManifest>;

/** `host:port` with an explicit port and no wildcard. */
export const HostPort = z
  .string()
  .regex(/^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:]+\]):\d{1,5}$/i, {
    message: "must be host:port with an explicit port and no wildcard",
    abort: true, // the port range check below needs a well-formed host:port
  })
  .refine((h) => {
    const port = Number(h.slice(h.lastIndexOf(":") + 1));
    return port >= 1 && port <= 65535;
  }, "port must be between 1 and 65535");

export const ConnectorManifest = z
  .object({
    name: identifier,
    version: semver,
    description: z.string().min(1).optional(),
    wasm: z.string().min(1), // path relative to the manifest file
    sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits"),
    capabilities: z
      .object({
        network: z
          .object({ hosts: z.array(HostPort).default([]) })
          .strict()
          .optional(),
        credential: z
          .object({
            kind: z.enum(["oauth2", "api_key", "none"]),
            header: z.string().min(1).optional(),
            format: z.string().min(1).optional(),
          })
          .strict()
          .optional(),
        fs: z
          .object({
            roots: z.array(z.string().refine((root) => root.startsWith("/"), "must be an absolute path")).default([]),
          })
          .strict()
          .optional(),
      })
      .strict()
      .default({}),
  })
  .strict();
export type ConnectorManifest = z.infer<typeof ConnectorManifest>;
