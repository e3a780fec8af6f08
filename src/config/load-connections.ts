import { join } from "node:path";
// Not the connector index: it loads the Extism host, which reading a file does not need.
import { CONNECTIONS_FILE, ConnectionsFile, type Connections } from "../connector/index.js";
import { CountersignError } from "../model/index.js";
import { parseToml } from "../model/index.js";
import { lineOf } from "../model/index.js";
import { readTextFile } from "./read-file.js";

/** Read `<dataDir>/connections.toml`; a missing or malformed file is a config_error naming the file, the key and its line. */
export function loadConnections(dataDir: string): Connections {
  const file = join(dataDir, CONNECTIONS_FILE);
  const fail = (message: string, where: { key?: string; line?: number } = {}): CountersignError => {
    const at = where.line === undefined ? file : `${file}:${where.line}`;
    return new CountersignError("config_error", "connector", `${at}: ${where.key === undefined ? "" : `${where.key}: `}${message}`, {
      details: { file, ...where },
    });
  };
  const read = readTextFile(file);
  if ("problem" in read) throw fail(`${read.problem}: create it with one [<connector>] table per connection`);
  const parsed = parseToml(read.text);
  if (parsed.problem !== undefined) throw fail(parsed.problem.message, parsed.problem.line === undefined ? {} : { line: parsed.problem.line });
  const result = ConnectionsFile.safeParse(parsed.value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const path = issue.path.map((p) => (typeof p === "number" ? p : String(p)));
    const line = lineOf(parsed.lines, path);
    throw fail(issue.message, { key: path.join("."), ...(line === undefined ? {} : { line }) });
  }
  return { file, byConnector: result.data };
}
