/**
 * Paths into a JSON value, as the facts and policies write them: `$` the whole value, `.name` a
 * field whose name is an identifier, `["a b"]` any other field (a JSON string), `[*]` every
 * element of an array. One spelling per path, so that paths compare segment by segment.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const SEGMENT = /^(?:\.([A-Za-z_$][A-Za-z0-9_$]*)|\[\*\]|\[("(?:[^"\\]|\\.)*")\])/;

/** One step of a path: a field by name, or every element of an array. */
export type PathSegment = { field: string } | { every: true };

/** The path of field `key` inside the value at `parent`. */
export function fieldPath(parent: string, key: string): string {
  return `${parent}${IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`}`;
}

/** The path of every element of the array at `parent`. */
export function elementPath(parent: string): string {
  return `${parent}[*]`;
}

/** A path's segments, or undefined when it is not a path. */
export function pathSegments(path: string): PathSegment[] | undefined {
  if (!path.startsWith("$")) return undefined;
  const out: PathSegment[] = [];
  let rest = path.slice(1);
  while (rest !== "") {
    const m = SEGMENT.exec(rest);
    if (m === null) return undefined;
    if (m[1] !== undefined) out.push({ field: m[1] });
    else if (m[2] !== undefined) out.push({ field: JSON.parse(m[2]) as string });
    else out.push({ every: true });
    rest = rest.slice(m[0].length);
  }
  return out;
}

/** The one spelling of a path (`$["iban"]` is `$.iban`), or undefined when it is not one. */
export function canonicalFieldPath(path: string): string | undefined {
  return pathSegments(path)?.reduce((at, s) => ("every" in s ? elementPath(at) : fieldPath(at, s.field)), "$");
}

/** Whether `path` is `outer` or lies inside it (`$.payee` covers `$.payee.iban`; `$.iban` does not cover `$`). */
export function pathCovers(outer: string, path: string): boolean {
  const o = pathSegments(outer);
  const p = pathSegments(path);
  if (o === undefined || p === undefined || o.length > p.length) return false;
  return o.every((s, i) => {
    const q = p[i]!;
    return "every" in s ? "every" in q : "field" in q && q.field === s.field;
  });
}
