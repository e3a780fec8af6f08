/**
 * Best-effort line of a rule field in a policy file's text: the line of the field's key (or of a
 * `[rules.<field>]` table) inside the rule's `[[rules]]` block, else the block's header. TOML has
 * no source map; this covers the ways the shipped files and the docs write rules.
 */
export function locate(text: string, ruleIndex: number | undefined, field: string | undefined): number | undefined {
  const lines = text.split("\n");
  const key = field?.split(".")[0];
  if (ruleIndex === undefined) {
    if (key === undefined) return undefined;
    const at = lines.findIndex((l) => new RegExp(`^\\s*${escape(key)}\\s*=`).test(l));
    return at >= 0 ? at + 1 : undefined;
  }
  const headers = lines.flatMap((l, i) => (/^\s*\[\[\s*rules\s*\]\]/.test(l) ? [i] : []));
  const start = headers[ruleIndex];
  if (start === undefined) return undefined;
  if (key === undefined) return start + 1;
  const end = headers[ruleIndex + 1] ?? lines.length;
  const keyLine = new RegExp(`^\\s*(${escape(key)}\\s*[=.]|\\[\\s*rules\\.${escape(key)}\\b)`);
  for (let i = start + 1; i < end; i++) if (keyLine.test(lines[i]!)) return i + 1;
  return start + 1;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
