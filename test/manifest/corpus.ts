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

/** Where a case's one error is expected: in the (first) edited file unless `file` says otherwise. */
type Expected = Omit<CorpusCase["expect"], "file"> & { file?: string };

/** The case `name`: the edits made, the error expected, and how many errors in all (1 unless given). */
function broken(name: string, edits: Edit | Edit[], expected: Expected, count?: number): CorpusCase {
  const list = Array.isArray(edits) ? edits : [edits];
  return { name, edits: list, expect: { file: list[0]!.file, ...expected }, ...(count === undefined ? {} : { count }) };
}

const replace = (file: string, from: string | RegExp, to: string): Edit => ({ file, replace: [from, to] });
const append = (file: string, text: string): Edit => ({ file, append: text });
const write = (file: string, text: string): Edit => ({ file, write: text });

const SEND_EMAIL = "email/send_email.toml";
const DRAFT_EMAIL = "email/draft_email.toml";
const SEND_DRAFT = "email/send_draft.toml";
const GET_DRAFT = "email/get_draft.toml";
const READ_FILE = "fs/read_file.toml";
const EMAIL = "email/connector.toml";
const FS = "fs/connector.toml";
const HTTP = "http/connector.toml";
const HTTP_GET = "http/get.toml";

/** send_draft's preview op changed to `op`. */
const previewOp = (op: string) => replace(SEND_DRAFT, 'op = "get_draft"', `op = "${op}"`);
/** A `[resolve]` added to send_draft: its op, the `id` it reads with, and its inputs (TOML table body). */
const resolve = (op: string, id: string, inputs: string) =>
  append(SEND_DRAFT, `\n[resolve]\nop = "${op}"\nargs = { id = "${id}" }\ninputs = { ${inputs} }\n`);
/** The email connector's one network host changed to `host`. */
const emailHost = (host: string) => replace(EMAIL, '"gmail.googleapis.com:443"', `"${host}"`);
/** A connector's sha256 pin changed to `pin`. */
const pin = (file: string, value: string) => replace(file, /^sha256 = .*$/m, `sha256 = "${value}"`);
/** A new fs action file of one step. */
const fsAction = (name: string, description: string, idempotent: boolean, step: string, op: string) =>
  write(
    `fs/${name}.toml`,
    `name = "${name}"\nversion = "1.0.0"\ndescription = "${description}"\nidempotent = ${idempotent}\n\n[[execute]]\nid = "${step}"\nconnector = "fs"\nop = "${op}"\n`,
  );

export const corpus: CorpusCase[] = [
  broken("an ${args.X} that names no input", replace(SEND_EMAIL, 'body = "${args.body}"', 'body = "${args.bdy}"'), {
    field: "execute[0].inputs.body",
    line: 33,
    message: '"${args.bdy}" names no input of this action (inputs: to, subject, body)',
  }),
  broken(
    "a ${step.field} that names no earlier step",
    replace(DRAFT_EMAIL, 'body = "${args.body}"', 'body = "${create.id}"'),
    {
      field: "execute[0].inputs.body",
      line: 33,
      message: '"${create.id}" names no earlier step (earlier steps: none)',
    },
  ),
  broken(
    "a reference that is neither args nor a step field",
    replace("fs/read_file.toml", '"${args.path}"', '"${args}"'),
    { field: "execute[0].inputs.path", line: 17, message: '"${args}" is not a valid reference' },
  ),
  broken("an unterminated ${", replace("fs/list_dir.toml", '"${args.path}"', '"${args.path"'), {
    field: "execute[0].inputs.path",
    line: 17,
    message: 'unterminated "${"',
  }),
  broken("a preview op that is not an action of the connector", previewOp("get_drafts"), {
    field: "approval.preview.op",
    line: 23,
    message: '"get_drafts" is not an action of connector email',
  }),
  broken("a preview op that is not idempotent", previewOp("draft_email"), {
    field: "approval.preview.op",
    line: 23,
    message: '"draft_email" is not idempotent = true',
  }),
  broken("a preview op that itself requires approval", append(GET_DRAFT, "\n[approval]\nrequired = true\n"), {
    file: SEND_DRAFT,
    field: "approval.preview.op",
    line: 23,
    message: '"get_draft" itself requires approval',
  }),
  broken("a resolve op that is not idempotent", resolve("draft_email", "${args.draft_id}", 'to = "to"'), {
    field: "resolve.op",
    line: 29,
    message: '"draft_email" is not idempotent = true, so it cannot run as a resolve',
  }),
  broken(
    "a resolved input with the name of a declared input (the program could pass it)",
    resolve("get_draft", "${args.draft_id}", 'draft_id = "id"'),
    { field: "resolve.inputs.draft_id", line: 31, message: '"draft_id" is a declared input' },
  ),
  broken("resolve args naming no input", resolve("get_draft", "${args.to}", 'to = "to"'), {
    field: "resolve.args.id",
    line: 30,
    message: '"${args.to}" names no input of this action (inputs: draft_id)',
  }),
  broken("an empty render table", replace(SEND_DRAFT, /render = .*/, "render = {}"), {
    field: "approval.preview.render",
    line: 25,
    message: "must name at least one field to show",
  }),
  broken(
    "a multiline label that is not a render key",
    replace(SEND_DRAFT, 'multiline = ["Body"]', 'multiline = ["Bdy"]'),
    {
      field: "approval.preview.multiline[0]",
      line: 26,
      message: '"Bdy" is not a render label (labels: To, Subject, Body)',
    },
  ),
  broken(
    "preview args naming no input",
    replace(SEND_DRAFT, 'args = { id = "${args.draft_id}" }', 'args = { id = "${args.draft}" }'),
    {
      field: "approval.preview.args.id",
      line: 24,
      message: '"${args.draft}" names no input of this action (inputs: draft_id)',
    },
  ),
  broken(
    "preview args using a step result",
    replace(SEND_DRAFT, 'args = { id = "${args.draft_id}" }', 'args = { id = "${send.id}" }'),
    { field: "approval.preview.args.id", line: 24, message: "preview args can only use ${args.<input>}" },
  ),
  broken(
    "a connector whose wasm is missing",
    { file: "../wasm/email.wasm", remove: true },
    { file: EMAIL, field: "wasm", line: 6, message: "../../wasm/email.wasm does not exist" },
  ),
  // The pin no longer matches either: two errors.
  broken(
    "a connector whose wasm is not a WebAssembly module",
    write("../wasm/email.wasm", "\0asm but not really"),
    { file: EMAIL, field: "wasm", line: 6, message: "../../wasm/email.wasm is not a valid WebAssembly module: " },
    2,
  ),
  broken(
    "an execute op that the connector's plugin does not export",
    replace(SEND_DRAFT, 'op = "send_draft"', 'op = "send_drafts"'),
    {
      field: "execute[0].op",
      line: 16,
      message:
        '"send_drafts" is not exported by the email plugin (exports: create_draft, get_draft, send_draft, send_message)',
    },
  ),
  broken("a sha256 pin that does not match the wasm", pin(EMAIL, "ab".repeat(32)), {
    field: "sha256",
    line: 7,
    message: "does not match the wasm: ../../wasm/email.wasm has sha256 ",
  }),
  broken("a placeholder sha256 pin", pin(FS, "0".repeat(64)), {
    field: "sha256",
    line: 7,
    message: "is a placeholder: ../../wasm/fs.wasm has sha256 ",
  }),
  broken("a sha256 pin that is not hex", pin(FS, "sha256-abc"), {
    field: "sha256",
    line: 7,
    message: "must be 64 lowercase hex digits",
  }),
  broken("a network host without a port", emailHost("gmail.googleapis.com"), {
    field: "capabilities.network.hosts[0]",
    line: 10,
    message: "must be host:port with an explicit port and no wildcard",
  }),
  broken("a wildcard network host", emailHost("*.googleapis.com:443"), {
    field: "capabilities.network.hosts[0]",
    line: 10,
    message: "no wildcard",
  }),
  broken("a network port out of range", emailHost("gmail.googleapis.com:70000"), {
    field: "capabilities.network.hosts[0]",
    line: 10,
    message: "port must be between 1 and 65535",
  }),
  broken("two action files with the same name", replace(SEND_EMAIL, 'name = "send_email"', 'name = "send_draft"'), {
    field: "name",
    line: 1,
    message: 'duplicate action "send_draft" (also in email/send_draft.toml)',
  }),
  broken("an action name that does not match its file", replace("http/post.toml", 'name = "post"', 'name = "put"'), {
    field: "name",
    line: 1,
    message: '"put" does not match the file name post.toml',
  }),
  broken(
    "two inputs with the same name",
    append(DRAFT_EMAIL, '\n[[inputs]]\nname = "to"\ntype = "string"\ndescription = "Again."\n'),
    { field: "inputs[3].name", line: 36, message: 'duplicate input "to" (also inputs[0])' },
  ),
  broken(
    "two steps with the same id",
    append(DRAFT_EMAIL, '\n[[execute]]\nid = "create"\nconnector = "email"\nop = "create_draft"\n'),
    { field: "execute[1].id", line: 36, message: 'duplicate step id "create" (also execute[0])' },
  ),
  broken(
    "a connector directory without connector.toml",
    { file: HTTP, remove: true },
    { field: "", message: "missing: the actions in http/ have no connector manifest" },
  ),
  broken(
    "an execute step on a connector that does not exist",
    replace(SEND_EMAIL, 'connector = "email"', 'connector = "mail"'),
    { field: "execute[0].connector", line: 31, message: '"mail" is not a connector (connectors: email, fs, http)' },
  ),
  broken("an oauth2 credential without a header", replace(EMAIL, 'header = "Authorization"\n', ""), {
    field: "capabilities.credential.header",
    line: 12,
    message: 'is required for kind "oauth2"',
  }),
  broken(
    "a credential format without {token}",
    replace(EMAIL, 'format = "Bearer {token}"', 'format = "Bearer token"'),
    { field: "capabilities.credential.format", line: 15, message: "must contain {token}" },
  ),
  broken("a credential of kind none with a header", replace(FS, 'kind = "none"', 'kind = "none"\nheader = "X-Key"'), {
    field: "capabilities.credential.header",
    line: 11,
    message: 'kind "none" takes no header',
  }),
  broken(
    "an api_key credential without a format",
    replace(HTTP, 'kind = "none"', 'kind = "api_key"\nheader = "X-Api-Key"'),
    { field: "capabilities.credential.format", line: 11, message: 'is required for kind "api_key"' },
  ),
  broken(
    "an input type outside the closed set",
    replace(
      DRAFT_EMAIL,
      'type = "string"\nrequired = true\ndescription = "Subject line."',
      'type = "text"\nrequired = true\ndescription = "Subject line."',
    ),
    {
      field: "inputs[1].type",
      line: 16,
      message: 'must be one of "string", "integer", "number", "boolean", "array", "object"',
    },
  ),
  broken(
    "multiline on an input that is not a string",
    replace(SEND_EMAIL, 'items_type = "string"', 'items_type = "string"\nmultiline = true'),
    { field: "inputs[0].multiline", line: 10, message: "multiline is only allowed on string inputs" },
  ),
  broken("an array input without items_type", replace(SEND_EMAIL, 'items_type = "string"\n', ""), {
    field: "inputs[0].items_type",
    line: 6,
    message: "array inputs must declare items_type",
  }),
  broken(
    "a missing required key",
    replace(GET_DRAFT, 'description = "Read a draft: its recipients, subject and body."\n', ""),
    { field: "description", message: "is required" },
  ),
  broken("an unknown key (a typo)", replace(GET_DRAFT, "required = true", 'required = true\nlable = "Draft"'), {
    field: "inputs[0].lable",
    line: 10,
    message: "unknown key",
  }),
  broken("a version that is not SemVer", replace(HTTP_GET, 'version = "1.0.0"', 'version = "1.0"'), {
    field: "version",
    line: 2,
    message: "must be a SemVer version like 1.0.0",
  }),
  broken("idempotent given as a string", replace(HTTP_GET, "idempotent = true", 'idempotent = "yes"'), {
    field: "idempotent",
    line: 4,
    message: 'must be a boolean, not "yes"',
  }),
  broken(
    "an action without execute steps",
    [
      replace(HTTP_GET, /\[\[execute\]\][\s\S]*$/, ""),
      replace(HTTP_GET, "idempotent = true", "idempotent = true\nexecute = []"),
    ],
    { field: "execute", line: 5, message: "an action needs at least one [[execute]] step" },
  ),
  broken("a connector name that does not match its directory", replace(FS, 'name = "fs"', 'name = "files"'), {
    field: "name",
    line: 3,
    message: '"files" does not match its directory fs/',
  }),
  broken("an fs root that is not absolute", replace(FS, "roots = []", 'roots = ["data"]'), {
    field: "capabilities.fs.roots[0]",
    line: 13,
    message: "must be an absolute path",
  }),
  broken(
    "an action whose function would be a reserved word",
    fsAction("delete", "Delete.", false, "rm", "write_file"),
    { field: "name", line: 1, message: '"delete" would export the reserved word delete' },
  ),
  broken("two actions that become the same function", fsAction("read__file", "Read.", true, "read", "read_file"), {
    file: "fs/read_file.toml",
    field: "name",
    line: 1,
    message: '"read_file" and "read__file" (fs/read__file.toml) both become the function readFile',
  }),
  broken("a manifest outside any connector directory", write("stray.toml", 'name = "stray"\n'), {
    field: "",
    message: "manifests belong in a connector directory",
  }),
  broken(
    "a result field of an unknown type",
    append(READ_FILE, '\n[result]\n\n[[result.fields]]\nname = "content"\ntype = "text"\ndescription = "The text."\n'),
    {
      field: "result.fields[0].type",
      line: 23,
      message: 'must be one of "string", "integer", "number", "boolean", "array", "object"',
    },
  ),
  broken("made on [result] itself: it belongs to a field", append(READ_FILE, "\n[result]\nmade = true\n"), {
    field: "result.made",
    line: 20,
    message: "unknown key",
  }),
  broken(
    "an unknown key in a result field",
    append(
      READ_FILE,
      '\n[result]\n\n[[result.fields]]\nname = "content"\ntype = "string"\nlabel = "Text"\ndescription = "The text."\n',
    ),
    { field: "result.fields[0].label", line: 24, message: "unknown key" },
  ),
  broken(
    "a result array without items_type",
    append(READ_FILE, '\n[result]\n\n[[result.fields]]\nname = "lines"\ntype = "array"\ndescription = "The lines."\n'),
    { field: "result.fields[0].items_type", line: 21, message: "array result fields must declare items_type" },
  ),
  broken(
    "two result fields with the same name",
    append(
      READ_FILE,
      '\n[result]\n\n[[result.fields]]\nname = "content"\ntype = "string"\ndescription = "The text."\n\n[[result.fields]]\nname = "content"\ntype = "number"\ndescription = "Again."\n',
    ),
    { field: "result.fields[1].name", line: 27, message: 'duplicate result field "content" (also result.fields[0])' },
  ),
];
