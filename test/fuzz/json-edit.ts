// Random edits of a JSON value at a random place in it: replace, delete, or add a member.
import fc from "fast-check";

export type JsonEdit = { at: number; kind: "replace" | "delete" | "add"; key: string; value: unknown };

export const jsonEdit: fc.Arbitrary<JsonEdit> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom("replace", "delete", "add"),
  key: fc.oneof(
    fc.constantFrom(
      "kid",
      "x",
      "d",
      "kty",
      "crv",
      "alg",
      "use",
      "iss",
      "aud",
      "exp",
      "nbf",
      "iat",
      "jti",
      "sha256",
      "op",
      "args",
      "count",
      "max",
      "__proto__",
      "constructor",
    ),
    fc.string({ maxLength: 6 }),
  ),
  value: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(null, -1, 0, 1e308, 2 ** 53, "", "*", [], {})),
});

/** Every place in `value` (objects and arrays, the root included), depth first. */
function containers(
  value: unknown,
  out: (Record<string, unknown> | unknown[])[] = [],
): (Record<string, unknown> | unknown[])[] {
  if (typeof value === "object" && value !== null) {
    out.push(value as Record<string, unknown> | unknown[]);
    for (const child of Object.values(value)) containers(child, out);
  }
  return out;
}

/** A deep copy of `value` with `edit` applied (JSON in, JSON out). */
export function applyJsonEdit<T>(value: T, edit: JsonEdit): T {
  const copy = JSON.parse(JSON.stringify(value)) as T;
  const places = containers(copy);
  const place = places[edit.at % places.length]!;
  const keys = Object.keys(place);
  const existing = keys.length === 0 ? undefined : keys[edit.at % keys.length]!;
  if (Array.isArray(place)) {
    const i = existing === undefined ? 0 : Number(existing);
    if (edit.kind === "delete") place.splice(i, 1);
    else if (edit.kind === "add") place.push(edit.value);
    else place[i] = edit.value;
  } else if (edit.kind === "add" || existing === undefined) {
    Object.defineProperty(place, edit.key, { value: edit.value, enumerable: true, writable: true, configurable: true });
  } else if (edit.kind === "delete") {
    delete place[existing];
  } else {
    place[existing] = edit.value;
  }
  return copy;
}
