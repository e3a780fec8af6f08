import { z } from "zod";

/**
 * An action manifest an agent submits with its program (`check --manifest`, the authority's
 * `manifests` field): the text of one `<action>.toml` and the name it goes by in error messages.
 * Untrusted input: it is parsed and checked against the trusted manifests before anything reads it.
 */
export const AgentManifestSource = z.object({ name: z.string().min(1).max(200), text: z.string() }).strict();
export type AgentManifestSource = z.infer<typeof AgentManifestSource>;
