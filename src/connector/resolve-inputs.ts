import type { ManifestSet } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Json } from "../model/index.js";
import { checkCallBeforeRead, type VerifiedReceipt } from "../receipt/index.js";
import { admitPreview, checkedForm } from "./admission.js";
import { checkArgs } from "./check-args.js";
import type { ConnectorContext } from "./context.js";
import { executeAction } from "./execute-action.js";
import { fillTemplate } from "./interpolate.js";
import { resolvePath } from "./resolve-path.js";

/**
 * The inputs a call does not show, read before it is admitted (manifest `[resolve]`, e.g. the
 * recipients of the draft email.send_draft would send): the resolve op runs with the user's
 * credential on the run's plugins, and each named path of its output becomes an input that
 * admitCall checks and the steps then get. The read is an effect whose arguments the program
 * chose: it is made only for a call the receipt admits in every respect but the values read
 * (checkCallBeforeRead: the grant, its connector, every other argument inside its constraint,
 * counts), so it reads nothing the grant did not cover; a call refused there throws that refusal
 * and nothing is read. `{}` for an action without `[resolve]`, and for a call whose program
 * passes a resolved input itself (admitCall refuses it). A read that
 * fails, or an output without a named field, fails the call closed: nothing is sent.
 */
export async function resolveInputs(
  verified: VerifiedReceipt,
  set: ManifestSet,
  op: string,
  data: Record<string, Json>,
  ctx: ConnectorContext,
): Promise<Record<string, Json>> {
  const action = set.actions.get(op);
  const spec = action?.manifest.resolve;
  const template = action?.templates.resolve;
  if (action === undefined || spec === undefined || template === undefined) return {};
  // A call whose program names a resolved input itself is refused by admitCall: nothing is read for it.
  const later = new Set(Object.keys(spec.inputs));
  if ([...later].some((input) => Object.hasOwn(data, input))) return {};
  // In the form admitCall will check: canonical (a non-canonical argument is refused before any read), every declared
  // input.
  const { full } = checkedForm(action, data);
  const connector = set.connectors.get(action.connector);
  checkCallBeforeRead(
    verified,
    { op, connector: { name: action.connector, sha256: connector?.manifest.sha256 ?? "" }, args: full },
    later,
  );
  checkArgs(action, data);
  const target = `${action.connector}.${spec.op}`;
  let output: Json;
  try {
    output = await executeAction(
      set,
      admitPreview(set, target, fillTemplate(template, { args: data }) as Record<string, Json>, verified),
      ctx,
    );
  } catch (err) {
    const cause = err instanceof CountersignError ? err : undefined;
    const why = err instanceof Error ? err.message : String(err);
    throw new CountersignError(
      cause?.class ?? "connector_error",
      cause?.boundary ?? "connector",
      `${op}: cannot read what the call would act on (${target}: ${why}), so nothing was done`,
      {
        retriable: cause?.retriable ?? false,
        details: { ...cause?.details, op, resolve: target, reason: "unresolved" },
        cause: err,
      },
    );
  }
  const resolved: Record<string, Json> = {};
  for (const [input, path] of Object.entries(spec.inputs)) {
    const value = resolvePath(output, path);
    if (value === undefined) {
      throw new CountersignError(
        "connector_error",
        "connector",
        `${op}: ${target} returned no \`${path}\` for input \`${input}\`, so nothing was done`,
        {
          details: { op, resolve: target, input, reason: "unresolved" },
        },
      );
    }
    resolved[input] = value;
  }
  return resolved;
}
