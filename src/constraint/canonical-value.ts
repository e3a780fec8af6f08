import type { AbstractValue, Json } from "../model/index.js";
import { canonicalAddress, isAddress } from "./email-address.js";
import { canonicalPath } from "./canonical-path.js";
import { canonicalUrl } from "./canonical-url.js";

export type InputFormat = "url" | "path" | "email";

/**
 * What the analysis knows of a formatted argument, in the canonical form the trusted wrapper
 * sends it in (src/connector/canonical-args.ts), so that rules, guarantees and grants are
 * evaluated on what will be sent: a URL constant as its canonical text; a partly known URL whose
 * known prefix holds the whole authority (`https://API.x.com:443/` + ...) with that authority in
 * canonical form; a list item by item. A constant the wrapper would refuse stays as it is (no run
 * sends it); a shape this cannot rewrite exactly stays as it is too. Paths are sent as written
 * or refused, so they stay; addresses stay too, as the constraint language already compares them
 * in canonical form (email-address.ts), `distinct` included.
 *
 * Why the static checks are sound whatever this does: the grant of every input holds the
 * constraint of its facts (build-grants: constraintOf, intersected with what the decision relied
 * on), and the wrapper checks the grant on the canonical value it sends. So every value sent is a
 * member of the abstract value the policy judged, and a yes or no of `holds` on that value holds
 * for it. A completion the raw prefix would not predict (`/public/` + `../admin`, `%2e%2e/`, `\`,
 * a tab) is refused as non canonical before the grant is checked, and one whose canonical form
 * leaves the shape (`HTTPS://API.X.COM/` + x sent as `https://api.x.com/...` when this left the
 * shape raw) fails the grant: a refused call, never an effect the decision did not allow. This
 * rewriting only spares such refusals for programs a person would call correct.
 */
export function canonicalAbstract(format: InputFormat, value: AbstractValue): AbstractValue {
  if (format !== "url") return value;
  switch (value.kind) {
    case "const":
      return { kind: "const", values: value.values.map((x) => canonicalJson(format, x)) };
    case "array":
      return { ...value, element: canonicalAbstract(format, value.element) };
    case "string":
      return { ...value, prefix: canonicalUrlPrefix(value.prefix) };
    default:
      return value;
  }
}

function canonicalJson(format: InputFormat, x: Json): Json {
  if (Array.isArray(x)) return x.map((item) => canonicalJson(format, item));
  return typeof x === "string" ? (canonicalText(format, x) ?? x) : x;
}

/** The canonical form of one text, undefined when the wrapper refuses it. */
function canonicalText(format: InputFormat, raw: string): string | undefined {
  const form = canonicalForm(format, raw);
  return form.ok ? form.canonical : undefined;
}

export type Form = { ok: true; canonical: string } | { ok: false; why: string; canonical?: string };

/**
 * One text in the canonical form of `format`, or why it is refused (and, where there is one,
 * the form it would have had). An address must be its own canonical form: the email connector
 * folds it again, so `bob@x.com..` (one dot dropped here, another there) would be checked as one
 * text and sent as another.
 */
export function canonicalForm(format: InputFormat, raw: string): Form {
  if (format === "url") return canonicalUrl(raw);
  if (format === "path") return canonicalPath(raw);
  // Text without `@` is no address: constraints compare it exactly, and the connector refuses it.
  if (!isAddress(raw)) return { ok: true, canonical: raw };
  const canonical = canonicalAddress(raw);
  return canonicalAddress(canonical) === canonical
    ? { ok: true, canonical }
    : { ok: false, why: "trailing_dots", canonical };
}

// scheme `://` authority, then the character that ends the authority and whatever follows.
const CLOSED = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*)([/?#].*)$/s;

/**
 * The known prefix of a URL with its scheme and authority canonical: every accepted completion
 * is sent as that canonical origin followed by the rest exactly as written (canonicalUrl changes
 * nothing else, and an empty path before `?` or `#` becomes `/`). Unchanged when the prefix does
 * not hold the whole authority, or holds one the wrapper refuses.
 */
function canonicalUrlPrefix(prefix: string): string {
  const closed = CLOSED.exec(prefix);
  if (closed === null) return prefix;
  const origin = canonicalUrl(`${closed[1]}/`);
  if (!origin.ok) return prefix;
  const rest = closed[2]!;
  return origin.canonical.slice(0, -1) + (rest.startsWith("/") ? rest : `/${rest}`);
}
