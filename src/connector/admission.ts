import type { LoadedAction, ManifestSet } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Json } from "../model/index.js";
import { checkCall } from "../receipt/index.js";
import type { VerifiedReceipt } from "../receipt/index.js";
import { canonicalArgs } from "./canonical-args.js";
import { marshal } from "./marshal.js";
import { deepFreeze } from "../model/index.js";

/**
 * Leave to run one action: the only thing executeAction accepts. There are two ways to get one,
 * both in this file and both checking first: admitCall, after the receipt admitted the call, and
 * admitPreview, for a read-only action that needs no approval. So no side effect happens without
 * a checked receipt, whoever calls executeAction. The arguments are frozen plain data: what was
 * checked is what runs.
 */
export interface Admission {
  readonly op: string;
  readonly args: Readonly<Record<string, Json>>;
  /** What plugin instances may be shared with: the run's receipt, or the preview alone. */
  readonly scope: object;
}

const issued = new WeakSet<Admission>();

/**
 * The trusted wrapper's check: the program's arguments marshaled to plain data (no program code
 * runs), each input with a declared `format` put in its canonical form (canonicalArgs; a URL or
 * path a person would read otherwise is refused as non_canonical), then checkCall on those forms
 * with every declared input (one left out counts as null) and the inputs the wrapper resolved
 * for an action with `[resolve]` (resolveInputs; one not given is absent, so a grant that
 * constrains it refuses the call). The admitted arguments are the canonical program arguments
 * and the resolved values: what was checked is what the steps get, byte for byte. Throws
 * grant_violation, receipt_invalid, capability_denied, or connector_error for a program argument
 * that names a resolved input; the refused call reaches no connector.
 */
export function admitCall(
  verified: VerifiedReceipt,
  set: ManifestSet,
  op: string,
  args: unknown,
  resolved: Readonly<Record<string, Json>> = {},
): Admission {
  const { action, connector } = lookup(set, op);
  const { data, full } = checkedForm(action, marshalArgs(op, args));
  for (const input of Object.keys(action.manifest.resolve?.inputs ?? {})) {
    if (Object.hasOwn(data, input)) {
      throw new CountersignError(
        "connector_error",
        "connector",
        `${op}: input \`${input}\` is read by the wrapper before the call; the program cannot pass it`,
        { details: { op, input } },
      );
    }
    if (Object.hasOwn(resolved, input)) full[input] = data[input] = resolved[input]!;
  }
  checkCall(verified, { op, connector: { name: connector.name, sha256: connector.manifest.sha256 }, args: full });
  return mint(op, data, verified);
}

/** The program's arguments of one call as plain data (no program code runs), which must be an object. */
export function marshalArgs(op: string, args: unknown): Record<string, Json> {
  const data = marshal(args);
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new CountersignError("grant_violation", "sandbox", `${op}: the arguments must be an object`, {
      details: { reason: "not_plain_data", path: "args" },
    });
  }
  return data;
}

/**
 * A preview at approval time (docs/architecture.md section 10), or the wrapper's own read of a call's
 * resolved inputs (`scope`: the run's receipt, whose plugins it shares): only an action that only
 * reads (`idempotent = true`) and is not approval-gated may run without a grant of its own. Its
 * formatted inputs are put in canonical form as admitCall's are, and sent in it.
 */
export function admitPreview(set: ManifestSet, op: string, args: Record<string, Json>, scope: object = {}): Admission {
  const { action } = lookup(set, op);
  if (!action.manifest.idempotent || action.manifest.approval.required) {
    throw new CountersignError(
      "capability_denied",
      "connector",
      `${op} is not a read-only action without approval: it runs only under a receipt`,
      { details: { op } },
    );
  }
  return mint(op, canonicalArgs(action, marshal(args) as Record<string, Json>), scope);
}

/**
 * Plain arguments as the wrapper checks and sends them: `data`, each formatted input in its
 * canonical form (canonicalArgs, which refuses a non-canonical one), and `full`, the same with
 * every declared input present (one left out as null), which is what checkCall judges.
 */
export function checkedForm(
  action: LoadedAction,
  args: Record<string, Json>,
): { data: Record<string, Json>; full: Record<string, Json> } {
  const data = canonicalArgs(action, args);
  const full: Record<string, Json> = {};
  for (const input of action.manifest.inputs)
    full[input.name] = Object.hasOwn(data, input.name) ? data[input.name]! : null;
  return { data, full };
}

/** Whether `admission` came from admitCall or admitPreview (a look-alike object does not). */
export function isAdmitted(admission: Admission): boolean {
  return issued.has(admission);
}

function lookup(set: ManifestSet, op: string) {
  const action = set.actions.get(op);
  const connector = action === undefined ? undefined : set.connectors.get(action.connector);
  if (action === undefined || connector === undefined) {
    throw new CountersignError("capability_denied", "connector", `unknown action ${op}`, { details: { op } });
  }
  return { action, connector };
}

function mint(op: string, args: Record<string, Json>, scope: object): Admission {
  const admission = Object.freeze({ op, args: deepFreeze(args), scope });
  issued.add(admission);
  return admission;
}
