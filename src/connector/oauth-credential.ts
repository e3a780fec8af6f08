import { isAbsolute } from "node:path";
import { z } from "zod";

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * https, or http to this machine only (a local authorization server under test): a token endpoint gets the client
 * secret and the refresh token.
 */
const EndpointUrl = z
  .url({ protocol: /^https?$/, error: "must be an https:// URL" })
  .refine(
    (u) => new URL(u).protocol === "https:" || LOOPBACK.has(new URL(u).hostname),
    "must be an https:// URL (http:// only to 127.0.0.1)",
  )
  .refine((u) => new URL(u).username === "" && new URL(u).password === "", "must not carry credentials");

/**
 * An OAuth 2.0 credential for one connection, in place of a token file: the host trades the
 * refresh token for access tokens at `token_url` as the client `client_id` (its secret read from
 * `client_secret_file`), for `scopes`. Both files stay on this machine; `countersign connect`
 * writes them.
 */
export const OAuthCredential = z
  .object({
    token_url: EndpointUrl,
    client_id: z.string().min(1, "must not be empty"),
    client_secret_file: z.string().refine(isAbsolute, "must be an absolute path"),
    refresh_token_file: z.string().refine(isAbsolute, "must be an absolute path"),
    scopes: z
      .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, "must be one scope, without spaces or quotes"))
      .min(1, "must name at least one scope"),
  })
  .strict();
export type OAuthCredential = z.infer<typeof OAuthCredential>;

export { EndpointUrl as OAuthEndpointUrl };
