/**
 * smol-toml gives values but no positions, so errors find their line by scanning the source:
 * each key and table header gets the path it defines (`[[inputs]]` number 1 then `type =` is
 * ["inputs", 1, "type"]), and a field is located at its longest indexed prefix. One scan, linear
 * in the source, shared by every TOML file countersign reads (manifests, policies, connections).
 */

export type FieldPath = readonly (string | number)[];

export type KeyLines = ReadonlyMap<string, number>;

/** What one scan found: the line of every key, and the first line nested deeper than allowed. */
export interface TomlIndex {
  lines: KeyLines;
  tooDeep: number | null; // 1-based line; scanning stops there
}

/**
 * The deepest nesting (table and key segments plus open brackets of a value) a countersign TOML
 * file may have. The shipped files need 6; the limit keeps the parser, the schemas and everything
 * that walks a value far from the stack's end.
 */
export const MAX_TOML_DEPTH = 32;

const keyOf = (path: FieldPath): string => path.join("\u0000");

interface ValueState {
  depth: number; // open [ and { of a value that spans lines
  string: string | null; // the delimiter of an open multi-line string
  base: number; // the nesting of the key the value belongs to
  deepest: number; // the most nesting seen in the value so far
}

/** The 1-based line of every key and table header in a TOML source, and where it nests too deep. */
export function indexKeyLines(source: string, maxDepth: number = MAX_TOML_DEPTH): TomlIndex {
  const index = new Map<string, number>();
  const arrayTables = new Map<string, number>(); // path -> how many [[path]] headers so far
  const state: ValueState = { depth: 0, string: null, base: 0, deepest: 0 };
  let tableKey = ""; // keyOf the current table's path
  let tableDepth = 0; // the named segments of that path

  const resolve = (segments: string[]): (string | number)[] => {
    const path: (string | number)[] = [];
    for (const segment of segments) {
      path.push(segment);
      const count = arrayTables.get(keyOf(path));
      if (count !== undefined) path.push(count - 1);
    }
    return path;
  };
  const record = (key: string, line: number): void => {
    if (!index.has(key)) index.set(key, line);
  };

  const lines = source.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    if (state.depth > 0 || state.string !== null) {
      scanValue(text, 0, state);
      if (state.deepest > maxDepth) return { lines: index, tooDeep: i + 1 };
      continue;
    }
    const trimmed = text.trimStart();
    if (trimmed.startsWith("[")) {
      const isArray = trimmed.startsWith("[[");
      const key = parseKey(trimmed, isArray ? 2 : 1);
      if (key === undefined || key.segments.length === 0) continue;
      if (key.segments.length > maxDepth) return { lines: index, tooDeep: i + 1 };
      tableDepth = key.segments.length;
      if (isArray) {
        const path = [...resolve(key.segments.slice(0, -1)), key.segments[key.segments.length - 1] as string];
        const count = arrayTables.get(keyOf(path)) ?? 0;
        arrayTables.set(keyOf(path), count + 1);
        tableKey = keyOf([...path, count]);
      } else {
        tableKey = keyOf(resolve(key.segments));
      }
      record(tableKey, i + 1);
      continue;
    }
    const key = parseKey(trimmed, 0);
    if (key === undefined || key.segments.length === 0 || trimmed[key.end] !== "=") continue;
    if (tableDepth + key.segments.length > maxDepth) return { lines: index, tooDeep: i + 1 };
    record(tableKey === "" ? keyOf(key.segments) : `${tableKey}\u0000${keyOf(key.segments)}`, i + 1);
    state.base = tableDepth + key.segments.length;
    state.deepest = state.base;
    scanValue(trimmed, key.end + 1, state);
    if (state.deepest > maxDepth) return { lines: index, tooDeep: i + 1 };
  }
  return { lines: index, tooDeep: null };
}

/** The line of `path`, or of its nearest ancestor that appears in the source. */
export function lineOf(lines: KeyLines, path: FieldPath): number | undefined {
  const prefixes: string[] = [];
  for (const segment of path)
    prefixes.push(prefixes.length === 0 ? String(segment) : `${prefixes[prefixes.length - 1]}\u0000${segment}`);
  for (let n = prefixes.length - 1; n >= 0; n--) {
    const line = lines.get(prefixes[n]!);
    if (line !== undefined) return line;
  }
  return undefined;
}

const BARE = /[A-Za-z0-9_-]+/y;

/** A dotted key (bare, "basic" or 'literal' segments) starting at `start`; `end` is past trailing spaces. */
function parseKey(text: string, start: number): { segments: string[]; end: number } | undefined {
  const segments: string[] = [];
  let i = skipSpaces(text, start);
  for (;;) {
    const quote = text[i];
    if (quote === '"' || quote === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== quote) j += quote === '"' && text[j] === "\\" ? 2 : 1;
      if (j >= text.length) return undefined;
      const raw = text.slice(i, j + 1);
      segments.push(quote === "'" ? raw.slice(1, -1) : decodeBasic(raw));
      i = j + 1;
    } else {
      BARE.lastIndex = i;
      const bare = BARE.exec(text);
      if (bare === null) return undefined;
      segments.push(bare[0]);
      i += bare[0].length;
    }
    i = skipSpaces(text, i);
    if (text[i] !== ".") return { segments, end: i };
    i = skipSpaces(text, i + 1);
  }
}

function decodeBasic(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1);
  }
}

function skipSpaces(text: string, i: number): number {
  while (text[i] === " " || text[i] === "\t") i++;
  return i;
}

/** Track strings, comments and brackets of a value so lines inside it are not read as keys. */
function scanValue(text: string, start: number, state: ValueState): void {
  let i = start;
  while (i < text.length) {
    if (state.string !== null) {
      const end = text.indexOf(state.string, i);
      if (end < 0) return;
      i = end + 3;
      state.string = null;
      continue;
    }
    const c = text[i];
    if (c === "#") return;
    if (text.startsWith('"""', i) || text.startsWith("'''", i)) {
      state.string = text.slice(i, i + 3);
      i += 3;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += c === '"' && text[j] === "\\" ? 2 : 1;
      i = j + 1;
    } else {
      if (c === "[" || c === "{") {
        state.depth++;
        state.deepest = Math.max(state.deepest, state.base + state.depth);
      } else if (c === "]" || c === "}") state.depth--;
      i++;
    }
  }
}

/** `inputs[1].type`, `approval.preview.render["Content type"]`. */
export function formatField(path: FieldPath): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
