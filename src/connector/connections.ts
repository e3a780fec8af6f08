import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { HostPort } from "../manifest/schema.js";
import { CountersignError } from "../model/errors.js";

/**
 * One connector's connection, from the user's connections.toml (trusted: never from a program).
 * `base_url` points the connector at its API and becomes its only allowed host; `token_file`
 * holds the credential the host injects; `hosts` and `roots` bound the http and fs connectors.
 */
export const Connection = z
  .object({
    base_url: z
      .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
      .refine((u) => new URL(u).username === "" && new URL(u).password === "", "must not carry credentials")
      .optional(),
    token_file: z.string().refine(isAbsolute, "must be an absolute path").optional(),
    hosts: z.array(HostPort).optional(),
    roots: z.array(z.string().refine(isAbsolute, "must be an absolute path")).optional(),
  })
  .strict();
export type Connection = z.infer<typeof Connection>;

export const ConnectionsFile = z.record(z.string(), Connection);

/** The parsed file together with its path, so every config error can name the file. */
export interface Connections {
  file: string;
  byConnector: Readonly<Record<string, Connection>>;
}

export const CONNECTIONS_FILE = "connections.toml";

/** Read `<dataDir>/connections.toml`; a missing or malformed file is a config_error naming it. */
export function loadConnections(dataDir: string): Connections {
  const file = join(dataDir, CONNECTIONS_FILE);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new CountersignError("config_error", "connector", `cannot read ${file}: create it with one [<connector>] table per connection`, {
      details: { file },
      cause: err,
    });
  }
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (err) {
    throw new CountersignError("config_error", "connector", `${file} is not valid TOML: ${(err as Error).message}`, { details: { file } });
  }
  const parsed = ConnectionsFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue?.path.join(".") ?? "";
    throw new CountersignError("config_error", "connector", `${file}: ${key}: ${issue?.message ?? "invalid"}`, { details: { file, key } });
  }
  return { file, byConnector: parsed.data };
}
