import { isAbsolute } from "node:path";
import { z } from "zod";
import { HostPort } from "../manifest/index.js";
import { OAuthCredential } from "./oauth-credential.js";

/**
 * One connector's connection, from the user's connections.toml (trusted: never from a program).
 * `base_url` points the connector at its API and becomes its only allowed host; `token_file`
 * holds the credential the host injects, or `oauth` says how the host obtains it (one or the
 * other); `hosts` and `roots` bound the http and fs connectors;
 * `address` is the user's own mail address on the account (the email connector), the one fact
 * that tells mail to oneself from mail to others.
 */
export const Connection = z
  .object({
    base_url: z
      .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
      .refine((u) => new URL(u).username === "" && new URL(u).password === "", "must not carry credentials")
      .optional(),
    token_file: z.string().refine(isAbsolute, "must be an absolute path").optional(),
    oauth: OAuthCredential.optional(),
    hosts: z.array(HostPort).optional(),
    roots: z.array(z.string().refine(isAbsolute, "must be an absolute path")).optional(),
    address: z.email({ error: "must be one email address, as in me@example.com" }).optional(),
  })
  .strict()
  .refine((c) => c.token_file === undefined || c.oauth === undefined, {
    path: ["oauth"],
    error: "give token_file or an [oauth] table, not both: remove token_file to use the OAuth credential",
  });
export type Connection = z.infer<typeof Connection>;

export const ConnectionsFile = z.record(z.string(), Connection);

/**
 * One of countersign's own secrets no program may reach, whatever the roots say: `path` is real
 * (links resolved) and `what` names it in errors (e.g. "the data directory").
 */
export interface Secret {
  path: string;
  what: string;
}

/**
 * The parsed file together with its path, so every config error can name the file, and the secrets the fs host refuses.
 */
export interface Connections {
  file: string;
  byConnector: Readonly<Record<string, Connection>>;
  secrets: readonly Secret[];
}

export const CONNECTIONS_FILE = "connections.toml";
