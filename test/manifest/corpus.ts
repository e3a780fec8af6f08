/**
 * Invalid manifests, one broken rule each, as edits to a copy of the valid fixture (see fixture.ts).
 * Paths are relative to the manifest directory; `message` is a substring of the expected message.
 * `count` is how many errors the case produces in all (1 unless a second one follows necessarily).
 */
export interface Edit {
  file: string;
  replace?: [string | RegExp, string]; // a string must occur in the file, a RegExp must match
  append?: string;
  write?: string;
  remove?: true;
}

export interface CorpusCase {
  name: string;
  edits: Edit[];
  expect: { file: string; field: string; line?: number; message: string };
  count?: number;
}

const zeros = "0".repeat(64);

export const corpus: CorpusCase[] = [
  {
    name: "an ${args.X} that names no input",
    edits: [{ file: "email/send_email.toml", replace: ['body = "${args.body}"', 'body = "${args.bdy}"'] }],
    expect: { file: "email/send_email.toml", field: "execute[0].inputs.body", line: 33, message: '"${args.bdy}" names no input of this action (inputs: to, subject, body)' },
  },
  {
    name: "a ${step.field} that names no earlier step",
    edits: [{ file: "email/draft_email.toml", replace: ['body = "${args.body}"', 'body = "${create.id}"'] }],
    expect: { file: "email/draft_email.toml", field: "execute[0].inputs.body", line: 33, message: '"${create.id}" names no earlier step (earlier steps: none)' },
  },
  {
    name: "a reference that is neither args nor a step field",
    edits: [{ file: "fs/read_file.toml", replace: ['"${args.path}"', '"${args}"'] }],
    expect: { file: "fs/read_file.toml", field: "execute[0].inputs.path", line: 17, message: '"${args}" is not a valid reference' },
  },
  {
    name: "an unterminated ${",
    edits: [{ file: "fs/list_dir.toml", replace: ['"${args.path}"', '"${args.path"'] }],
    expect: { file: "fs/list_dir.toml", field: "execute[0].inputs.path", line: 17, message: 'unterminated "${"' },
  },
  {
    name: "a preview op that is not an action of the connector",
    edits: [{ file: "email/send_draft.toml", replace: ['op = "get_draft"', 'op = "get_drafts"'] }],
    expect: { file: "email/send_draft.toml", field: "approval.preview.op", line: 23, message: '"get_drafts" is not an action of connector email' },
  },
  {
    name: "a preview op that is not idempotent",
    edits: [{ file: "email/send_draft.toml", replace: ['op = "get_draft"', 'op = "draft_email"'] }],
    expect: { file: "email/send_draft.toml", field: "approval.preview.op", line: 23, message: '"draft_email" is not idempotent = true' },
  },
  {
    name: "a preview op that itself requires approval",
    edits: [{ file: "email/get_draft.toml", append: "\n[approval]\nrequired = true\n" }],
    expect: { file: "email/send_draft.toml", field: "approval.preview.op", line: 23, message: '"get_draft" itself requires approval' },
  },
  {
    name: "a resolve op that is not idempotent",
    edits: [{ file: "email/send_draft.toml", append: '\n[resolve]\nop = "draft_email"\nargs = { id = "${args.draft_id}" }\ninputs = { to = "to" }\n' }],
    expect: { file: "email/send_draft.toml", field: "resolve.op", line: 29, message: '"draft_email" is not idempotent = true, so it cannot run as a resolve' },
  },
  {
    name: "a resolved input with the name of a declared input (the program could pass it)",
    edits: [{ file: "email/send_draft.toml", append: '\n[resolve]\nop = "get_draft"\nargs = { id = "${args.draft_id}" }\ninputs = { draft_id = "id" }\n' }],
    expect: { file: "email/send_draft.toml", field: "resolve.inputs.draft_id", line: 31, message: '"draft_id" is a declared input' },
  },
  {
    name: "resolve args naming no input",
    edits: [{ file: "email/send_draft.toml", append: '\n[resolve]\nop = "get_draft"\nargs = { id = "${args.to}" }\ninputs = { to = "to" }\n' }],
    expect: { file: "email/send_draft.toml", field: "resolve.args.id", line: 30, message: '"${args.to}" names no input of this action (inputs: draft_id)' },
  },
  {
    name: "an empty render table",
    edits: [{ file: "email/send_draft.toml", replace: [/render = .*/, "render = {}"] }],
    expect: { file: "email/send_draft.toml", field: "approval.preview.render", line: 25, message: "must name at least one field to show" },
  },
  {
    name: "a multiline label that is not a render key",
    edits: [{ file: "email/send_draft.toml", replace: ['multiline = ["Body"]', 'multiline = ["Bdy"]'] }],
    expect: { file: "email/send_draft.toml", field: "approval.preview.multiline[0]", line: 26, message: '"Bdy" is not a render label (labels: To, Subject, Body)' },
  },
  {
    name: "preview args naming no input",
    edits: [{ file: "email/send_draft.toml", replace: ['args = { id = "${args.draft_id}" }', 'args = { id = "${args.draft}" }'] }],
    expect: { file: "email/send_draft.toml", field: "approval.preview.args.id", line: 24, message: '"${args.draft}" names no input of this action (inputs: draft_id)' },
  },
  {
    name: "preview args using a step result",
    edits: [{ file: "email/send_draft.toml", replace: ['args = { id = "${args.draft_id}" }', 'args = { id = "${send.id}" }'] }],
    expect: { file: "email/send_draft.toml", field: "approval.preview.args.id", line: 24, message: "preview args can only use ${args.<input>}" },
  },
  {
    name: "a connector whose wasm is missing",
    edits: [{ file: "../wasm/email.wasm", remove: true }],
    expect: { file: "email/connector.toml", field: "wasm", line: 6, message: "../../wasm/email.wasm does not exist" },
  },
  {
    name: "a connector whose wasm is not a WebAssembly module",
    edits: [{ file: "../wasm/email.wasm", write: "\0asm but not really" }],
    expect: { file: "email/connector.toml", field: "wasm", line: 6, message: "../../wasm/email.wasm is not a valid WebAssembly module: " },
    count: 2, // the pin no longer matches either
  },
  {
    name: "an execute op that the connector's plugin does not export",
    edits: [{ file: "email/send_draft.toml", replace: ['op = "send_draft"', 'op = "send_drafts"'] }],
    expect: { file: "email/send_draft.toml", field: "execute[0].op", line: 16, message: '"send_drafts" is not exported by the email plugin (exports: create_draft, get_draft, send_draft, send_message)' },
  },
  {
    name: "a sha256 pin that does not match the wasm",
    edits: [{ file: "email/connector.toml", replace: [/^sha256 = .*$/m, `sha256 = "${"ab".repeat(32)}"`] }],
    expect: { file: "email/connector.toml", field: "sha256", line: 7, message: "does not match the wasm: ../../wasm/email.wasm has sha256 " },
  },
  {
    name: "a placeholder sha256 pin",
    edits: [{ file: "fs/connector.toml", replace: [/^sha256 = .*$/m, `sha256 = "${zeros}"`] }],
    expect: { file: "fs/connector.toml", field: "sha256", line: 7, message: "is a placeholder: ../../wasm/fs.wasm has sha256 " },
  },
  {
    name: "a sha256 pin that is not hex",
    edits: [{ file: "fs/connector.toml", replace: [/^sha256 = .*$/m, 'sha256 = "sha256-abc"'] }],
    expect: { file: "fs/connector.toml", field: "sha256", line: 7, message: "must be 64 lowercase hex digits" },
  },
  {
    name: "a network host without a port",
    edits: [{ file: "email/connector.toml", replace: ['"gmail.googleapis.com:443"', '"gmail.googleapis.com"'] }],
    expect: { file: "email/connector.toml", field: "capabilities.network.hosts[0]", line: 10, message: "must be host:port with an explicit port and no wildcard" },
  },
  {
    name: "a wildcard network host",
    edits: [{ file: "email/connector.toml", replace: ['"gmail.googleapis.com:443"', '"*.googleapis.com:443"'] }],
    expect: { file: "email/connector.toml", field: "capabilities.network.hosts[0]", line: 10, message: "no wildcard" },
  },
  {
    name: "a network port out of range",
    edits: [{ file: "email/connector.toml", replace: ['"gmail.googleapis.com:443"', '"gmail.googleapis.com:70000"'] }],
    expect: { file: "email/connector.toml", field: "capabilities.network.hosts[0]", line: 10, message: "port must be between 1 and 65535" },
  },
  {
    name: "two action files with the same name",
    edits: [{ file: "email/send_email.toml", replace: ['name = "send_email"', 'name = "send_draft"'] }],
    expect: { file: "email/send_email.toml", field: "name", line: 1, message: 'duplicate action "send_draft" (also in email/send_draft.toml)' },
  },
  {
    name: "an action name that does not match its file",
    edits: [{ file: "http/post.toml", replace: ['name = "post"', 'name = "put"'] }],
    expect: { file: "http/post.toml", field: "name", line: 1, message: '"put" does not match the file name post.toml' },
  },
  {
    name: "two inputs with the same name",
    edits: [{ file: "email/draft_email.toml", append: '\n[[inputs]]\nname = "to"\ntype = "string"\ndescription = "Again."\n' }],
    expect: { file: "email/draft_email.toml", field: "inputs[3].name", line: 36, message: 'duplicate input "to" (also inputs[0])' },
  },
  {
    name: "two steps with the same id",
    edits: [{ file: "email/draft_email.toml", append: '\n[[execute]]\nid = "create"\nconnector = "email"\nop = "create_draft"\n' }],
    expect: { file: "email/draft_email.toml", field: "execute[1].id", line: 36, message: 'duplicate step id "create" (also execute[0])' },
  },
  {
    name: "a connector directory without connector.toml",
    edits: [{ file: "http/connector.toml", remove: true }],
    expect: { file: "http/connector.toml", field: "", message: "missing: the actions in http/ have no connector manifest" },
  },
  {
    name: "an execute step on a connector that does not exist",
    edits: [{ file: "email/send_email.toml", replace: ['connector = "email"', 'connector = "mail"'] }],
    expect: { file: "email/send_email.toml", field: "execute[0].connector", line: 31, message: '"mail" is not a connector (connectors: email, fs, http)' },
  },
  {
    name: "an oauth2 credential without a header",
    edits: [{ file: "email/connector.toml", replace: ['header = "Authorization"\n', ""] }],
    expect: { file: "email/connector.toml", field: "capabilities.credential.header", line: 12, message: 'is required for kind "oauth2"' },
  },
  {
    name: "a credential format without {token}",
    edits: [{ file: "email/connector.toml", replace: ['format = "Bearer {token}"', 'format = "Bearer token"'] }],
    expect: { file: "email/connector.toml", field: "capabilities.credential.format", line: 15, message: "must contain {token}" },
  },
  {
    name: "a credential of kind none with a header",
    edits: [{ file: "fs/connector.toml", replace: ['kind = "none"', 'kind = "none"\nheader = "X-Key"'] }],
    expect: { file: "fs/connector.toml", field: "capabilities.credential.header", line: 11, message: 'kind "none" takes no header' },
  },
  {
    name: "an api_key credential without a format",
    edits: [{ file: "http/connector.toml", replace: ['kind = "none"', 'kind = "api_key"\nheader = "X-Api-Key"'] }],
    expect: { file: "http/connector.toml", field: "capabilities.credential.format", line: 11, message: 'is required for kind "api_key"' },
  },
  {
    name: "an input type outside the closed set",
    edits: [{ file: "email/draft_email.toml", replace: ['type = "string"\nrequired = true\ndescription = "Subject line."', 'type = "text"\nrequired = true\ndescription = "Subject line."'] }],
    expect: { file: "email/draft_email.toml", field: "inputs[1].type", line: 16, message: 'must be one of "string", "integer", "number", "boolean", "array", "object"' },
  },
  {
    name: "multiline on an input that is not a string",
    edits: [{ file: "email/send_email.toml", replace: ['items_type = "string"', 'items_type = "string"\nmultiline = true'] }],
    expect: { file: "email/send_email.toml", field: "inputs[0].multiline", line: 10, message: "multiline is only allowed on string inputs" },
  },
  {
    name: "an array input without items_type",
    edits: [{ file: "email/send_email.toml", replace: ['items_type = "string"\n', ""] }],
    expect: { file: "email/send_email.toml", field: "inputs[0].items_type", line: 6, message: "array inputs must declare items_type" },
  },
  {
    name: "a missing required key",
    edits: [{ file: "email/get_draft.toml", replace: ['description = "Read a draft: its recipients, subject and body."\n', ""] }],
    expect: { file: "email/get_draft.toml", field: "description", message: "is required" },
  },
  {
    name: "an unknown key (a typo)",
    edits: [{ file: "email/get_draft.toml", replace: ["required = true", "required = true\nlable = \"Draft\""] }],
    expect: { file: "email/get_draft.toml", field: "inputs[0].lable", line: 10, message: "unknown key" },
  },
  {
    name: "a version that is not SemVer",
    edits: [{ file: "http/get.toml", replace: ['version = "1.0.0"', 'version = "1.0"'] }],
    expect: { file: "http/get.toml", field: "version", line: 2, message: "must be a SemVer version like 1.0.0" },
  },
  {
    name: "idempotent given as a string",
    edits: [{ file: "http/get.toml", replace: ["idempotent = true", 'idempotent = "yes"'] }],
    expect: { file: "http/get.toml", field: "idempotent", line: 4, message: 'must be a boolean, not "yes"' },
  },
  {
    name: "an action without execute steps",
    edits: [
      { file: "http/get.toml", replace: [/\[\[execute\]\][\s\S]*$/, ""] },
      { file: "http/get.toml", replace: ["idempotent = true", "idempotent = true\nexecute = []"] },
    ],
    expect: { file: "http/get.toml", field: "execute", line: 5, message: "an action needs at least one [[execute]] step" },
  },
  {
    name: "a connector name that does not match its directory",
    edits: [{ file: "fs/connector.toml", replace: ['name = "fs"', 'name = "files"'] }],
    expect: { file: "fs/connector.toml", field: "name", line: 3, message: '"files" does not match its directory fs/' },
  },
  {
    name: "an fs root that is not absolute",
    edits: [{ file: "fs/connector.toml", replace: ["roots = []", 'roots = ["data"]'] }],
    expect: { file: "fs/connector.toml", field: "capabilities.fs.roots[0]", line: 13, message: "must be an absolute path" },
  },
  {
    name: "an action whose function would be a reserved word",
    edits: [{ file: "fs/delete.toml", write: 'name = "delete"\nversion = "1.0.0"\ndescription = "Delete."\nidempotent = false\n\n[[execute]]\nid = "rm"\nconnector = "fs"\nop = "write_file"\n' }],
    expect: { file: "fs/delete.toml", field: "name", line: 1, message: '"delete" would export the reserved word delete' },
  },
  {
    name: "two actions that become the same function",
    edits: [{ file: "fs/read__file.toml", write: 'name = "read__file"\nversion = "1.0.0"\ndescription = "Read."\nidempotent = true\n\n[[execute]]\nid = "read"\nconnector = "fs"\nop = "read_file"\n' }],
    expect: { file: "fs/read_file.toml", field: "name", line: 1, message: '"read_file" and "read__file" (fs/read__file.toml) both become the function readFile' },
  },
  {
    name: "a manifest outside any connector directory",
    edits: [{ file: "stray.toml", write: 'name = "stray"\n' }],
    expect: { file: "stray.toml", field: "", message: "manifests belong in a connector directory" },
  },
];
