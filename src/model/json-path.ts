/**
 * One step of a path into a JSON value: an object's field, or every element of a list.
 */
export type PathStep = { field: string } | { every: true };

// `.name`, `["any key"]` (a JSON string, escapes allowed), `[*]`.
const STEP = /\.([A-Za-z_][A-Za-z0-9_]*)|\[("(?:[^"\\\u0000-\u001f]|\\.)*")\]|\[\*\]/y;

/**
 * The steps of a path such as `$.payment.to`, `$.recipients[*].email` or `$["reply-to"]`, or
 * undefined when the text is no such path. `$` alone is the value itself. A quoted key is read
 * as JSON reads it, so `$["\u0074o"]` is the field `to`, as a JSON text's key would be.
 */
export function parseJsonPath(text: string): readonly PathStep[] | undefined {
  if (!text.startsWith("$")) return undefined;
  const steps: PathStep[] = [];
  STEP.lastIndex = 1;
  while (STEP.lastIndex < text.length) {
    const match = STEP.exec(text); // sticky: a match starts exactly where the last one ended
    if (match === null) return undefined;
    if (match[2] !== undefined) {
      const key = readKey(match[2]);
      if (key === undefined) return undefined;
      steps.push({ field: key });
    } else steps.push(match[1] !== undefined ? { field: match[1] } : { every: true });
  }
  return steps;
}

function readKey(quoted: string): string | undefined {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}
