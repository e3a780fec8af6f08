import { checkAgentManifests } from "../../../src/manifest/check-agent-manifests.js";
import type { ManifestSet } from "../../../src/manifest/manifest-set.js";

const header = (name: string, description: string, inputs: string[]) =>
  [`name = "${name}"`, `version = "1.0.0"`, `description = "${description}"`, `idempotent = false`, "", ...inputs].join(
    "\n",
  );
const input = (name: string, type: string, extra = "") =>
  `[[inputs]]\nname = "${name}"\ntype = "${type}"\ndescription = "${name}"\n${extra}`;
const step = (id: string, connector: string, op: string, inputs: string) =>
  `[[execute]]\nid = "${id}"\nconnector = "${connector}"\nop = "${op}"\ninputs = ${inputs}\n`;

/**
 * Agent actions the soundness generator calls (alphabet.ts): a step reading an earlier step's
 * output, text templates with fixed text around a reference, a list template mixing a literal and a
 * reference, an optional input left out, and literal inputs.
 */
export const AGENT_TEST_MANIFESTS = [
  {
    name: "mail_twice.toml",
    text: [
      header("mail_twice", "Draft a reply, then send the draft.", [
        input("to", "array", 'items_type = "string"'),
        input("subject", "string"),
        input("body", "string"),
      ]),
      step(
        "draft",
        "email",
        "draft_email",
        '{ to = "${args.to}", subject = "Re: ${args.subject}", body = "${args.body}" }',
      ),
      step("send", "email", "send_draft", '{ draft_id = "${draft.id}" }'),
      "[approval]\nrequired = true\n",
    ].join("\n"),
  },
  {
    name: "save_note.toml",
    text: [
      header("save_note", "Copy a file into the notes folder.", [input("path", "string"), input("body", "string")]),
      step("read", "fs", "read_file", '{ path = "${args.path}" }'),
      step(
        "write",
        "fs",
        "write_file",
        '{ path = "/home/user/Sandbox/notes/${args.body}.txt", content = "${read.content}" }',
      ),
      "[approval]\nrequired = true\n",
    ].join("\n"),
  },
  {
    name: "relay.toml",
    text: [
      header("relay", "Fetch a URL and log its body.", [
        input("url", "string"),
        input("content_type", "string", "required = false\n"),
      ]),
      step("get", "http", "get", '{ url = "${args.url}" }'),
      step(
        "log",
        "http",
        "post",
        '{ url = "https://api.x.com/v1/log?from=${args.url}", body = "${get.body}", content_type = "${args.content_type}" }',
      ),
    ].join("\n"),
  },
  {
    name: "notify.toml",
    text: [
      header("notify", "Mail a fixed address and one more.", [input("subject", "string")]),
      step(
        "send",
        "email",
        "send_email",
        '{ to = ["a@x.com", "${args.subject}"], subject = "${args.subject}", body = "fixed" }',
      ),
      "[approval]\nrequired = true\n",
    ].join("\n"),
  },
];

/** `set` with the generator's agent actions beside it. */
export function withTestAgents(set: ManifestSet): ManifestSet {
  const { set: out, errors } = checkAgentManifests(set, AGENT_TEST_MANIFESTS, { hosts: {}, roots: {} });
  if (out === undefined) throw new Error(`test agent manifests: ${JSON.stringify(errors)}`);
  return out;
}
