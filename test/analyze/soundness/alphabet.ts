/**
 * The small alphabets generated programs and guarantees draw from: small, so that a guarantee is
 * often about the very values a program passes (sometimes proven, sometimes refuted), and with a
 * few edge cases in each (case, `..`, encoded dots, ports, look-alike hosts, the empty string).
 */
export const FLAVORS = {
  email: ["a@x.com", "b@x.com", "c@y.org", "A@X.com"],
  text: ["hi", "report", "", "a@x.com", "x,y", "😀x"], // an astral character: strings iterate by code point
  path: [
    "/home/user/Sandbox/a.txt",
    "/home/user/Sandbox/sub/b.md",
    "/etc/passwd",
    "/home/user/Sandbox/../secret",
    "notes.txt",
  ],
  // Spellings a server reads as another path, and one the canonical form only lower-cases.
  url: [
    "https://api.x.com/v1",
    "https://evil.com/",
    "http://api.x.com:8080/p",
    "https://api.x.com.evil.com/",
    "https://api.x.com/v1/../admin",
    "https://api.x.com/v1/%2e%2e/admin",
    "HTTPS://API.x.com/v1",
  ],
  ctype: ["text/plain", "application/json"],
} as const;
export type Flavor = keyof typeof FLAVORS;

/** Bits of template text, none holding a backtick or `${`. */
export const TEMPLATE_TEXT = ["", "/", "@x.com", "https://api.x.com/", "-", "/home/user/Sandbox/"];

export const DIRS = ["/home/user/Sandbox", "/etc", "/home/user"];
export const HOSTS = ["api.x.com", "evil.com", "api.x.com:8080"];
export const GLOBS = ["*@x.com", "*@X.COM", "/home/user/Sandbox/*", "https://api.x.com/*", "*"];

/** The trusted functions: module, op, and each input with the flavor of value it wants. */
export interface TrustedFunction {
  name: string;
  connector: "email" | "fs" | "http" | "agent";
  op: string;
  inputs: { name: string; type: "str" | "strs"; flavor: Flavor; optional?: boolean }[];
  /** The fields its result has, for `String(r.<field>)`. */
  fields: string[];
}

const mail = [
  { name: "to", type: "strs", flavor: "email" },
  { name: "subject", type: "str", flavor: "text" },
  { name: "body", type: "str", flavor: "text" },
] as const;

export const TRUSTED: readonly TrustedFunction[] = [
  { name: "sendEmail", connector: "email", op: "email.send_email", inputs: [...mail], fields: ["id"] },
  { name: "draftEmail", connector: "email", op: "email.draft_email", inputs: [...mail], fields: ["id"] },
  {
    name: "getDraft",
    connector: "email",
    op: "email.get_draft",
    inputs: [{ name: "id", type: "str", flavor: "text" }],
    fields: ["body", "subject", "id"],
  },
  {
    name: "sendDraft",
    connector: "email",
    op: "email.send_draft",
    inputs: [{ name: "draft_id", type: "str", flavor: "text" }],
    fields: ["id"],
  },
  {
    name: "readFile",
    connector: "fs",
    op: "fs.read_file",
    inputs: [{ name: "path", type: "str", flavor: "path" }],
    fields: ["content"],
  },
  {
    name: "listDir",
    connector: "fs",
    op: "fs.list_dir",
    inputs: [{ name: "path", type: "str", flavor: "path" }],
    fields: ["entries"],
  },
  {
    name: "writeFile",
    connector: "fs",
    op: "fs.write_file",
    inputs: [
      { name: "path", type: "str", flavor: "path" },
      { name: "content", type: "str", flavor: "text" },
    ],
    fields: ["ok"],
  },
  {
    name: "get",
    connector: "http",
    op: "http.get",
    inputs: [{ name: "url", type: "str", flavor: "url" }],
    fields: ["body", "status"],
  },
  {
    name: "post",
    connector: "http",
    op: "http.post",
    inputs: [
      { name: "url", type: "str", flavor: "url" },
      { name: "body", type: "str", flavor: "text" },
      { name: "content_type", type: "str", flavor: "ctype", optional: true },
    ],
    fields: ["body", "status"],
  },
];

/** The agent actions of support/agent-test-manifests.ts: each call makes its steps' trusted calls. */
export const AGENT_ACTIONS: readonly TrustedFunction[] = [
  { name: "mailTwice", connector: "agent", op: "agent.mail_twice", inputs: [...mail], fields: ["id"] },
  {
    name: "saveNote",
    connector: "agent",
    op: "agent.save_note",
    inputs: [
      { name: "path", type: "str", flavor: "path" },
      { name: "body", type: "str", flavor: "text" },
    ],
    fields: ["ok"],
  },
  {
    name: "relay",
    connector: "agent",
    op: "agent.relay",
    inputs: [
      { name: "url", type: "str", flavor: "url" },
      { name: "content_type", type: "str", flavor: "ctype", optional: true },
    ],
    fields: ["body", "status"],
  },
  {
    name: "notify",
    connector: "agent",
    op: "agent.notify",
    inputs: [{ name: "subject", type: "str", flavor: "email" }],
    fields: ["id"],
  },
];

/** What a generated program may call: the trusted functions and the agent actions. */
export const CALLABLE: readonly TrustedFunction[] = [...TRUSTED, ...AGENT_ACTIONS];

export const OP_PATTERNS = [
  "email.*",
  "email.send_email",
  "email.send_*",
  "email.draft_email",
  "fs.*",
  "fs.write_file",
  "http.*",
  "http.post",
  "*",
];
