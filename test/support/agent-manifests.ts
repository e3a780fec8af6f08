import { join } from "node:path";
import { loadManifests } from "../../src/config/index.js";
import { checkAgentManifests, type Allowlists, type ManifestSet } from "../../src/manifest/index.js";
import { packageRoot } from "../../src/model/paths.js";

/** The shipped manifests, loaded once per test file. */
export const shipped: ManifestSet = loadManifests(join(packageRoot, "manifests"));

/** An agent action that opens a GitHub issue: one http.post whose URL the manifest fixes up to the repository. */
export const CREATE_ISSUE = `name = "create_issue"
version = "1.0.0"
description = "Open an issue in a GitHub repository."
idempotent = false

[[inputs]]
name = "repo"
type = "string"
description = "owner/name of the repository."

[[inputs]]
name = "payload"
type = "string"
description = "The issue as JSON: title and body."

[[execute]]
id = "create"
connector = "http"
op = "post"
inputs = { url = "https://api.github.com/repos/\${args.repo}/issues", body = "\${args.payload}", content_type = "application/json" }
`;

/** An agent action that sends a prepared draft through the trusted send_draft, previewing it with the trusted get_draft. */
export const SHIP_DRAFT = `name = "ship_draft"
version = "1.0.0"
description = "Send the prepared draft."
idempotent = false

[[inputs]]
name = "draft"
type = "string"
description = "The draft's id."

[[execute]]
id = "send"
connector = "email"
op = "send_draft"
inputs = { draft_id = "\${args.draft}" }

[approval]
required = true

[approval.preview]
op = "get_draft"
args = { id = "\${args.draft}" }
render = { Recipient = "message.payload.headers.To" }
`;

/** The shipped manifests with these agent manifests beside them; throws on any error. */
export function withAgent(
  sources: { name: string; text: string }[],
  allowlists?: Allowlists,
  trusted: ManifestSet = shipped,
): ManifestSet {
  const { set, errors } = checkAgentManifests(trusted, sources, allowlists);
  if (set === undefined) throw new Error(errors.map((e) => `${e.file}:${e.line} ${e.field}: ${e.message}`).join("\n"));
  return set;
}
