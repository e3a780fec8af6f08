import type { AdversarialCase } from "./case.js";
import { mail, prog } from "./program.js";

/** Guarantees that prove nothing, or something else than they say. */
export const guaranteeCases: AdversarialCase[] = [
  {
    name: "a guarantee on an op that does not exist",
    expect: { refused: "invalid_guarantee" },
    source: prog(`await sendEmail(${mail(`["boss@x.com"]`)});`, {
      guarantees: `{ op: "email.send_mail", count: { max: 0 } }`,
    }),
  },
  {
    name: "a guarantee on an input a read-only op does not have",
    expect: { refused: "invalid_guarantee" },
    source: prog(`await get({ url: "https://evil.com/" });`, {
      guarantees: `{ op: "http.get", args: { uri: { host_in: ["api.example.com"] } } }`,
    }),
  },
  {
    name: "an op glob that selects no op",
    expect: { refused: "invalid_guarantee" },
    source: prog(`await writeFile({ path: "/home/u/Sandbox/x", content: "x" });`, {
      guarantees: `{ op: "fs.delete_*", count: { max: 0 } }`,
    }),
  },
  // Controls.
  {
    name: "recipientsOnly and a draft sent by id",
    expect: "covered",
    source: prog(`await sendDraft({ draft_id: "d1" });`, { guarantees: `recipientsOnly(["me@example.com"])` }),
  },
  {
    name: "a contract helper given a string for a list",
    expect: "covered",
    source: prog(`await sendEmail(${mail(`["m@x.com"]`)});`, {
      guarantees: `recipientsOnly("m@x.com" as unknown as string[])`,
    }),
  },
  {
    name: "a guarantee naming a constant list",
    expect: "covered",
    source: prog(`await sendEmail(${mail("[ALLOWED[0]!]")});`, {
      top: `const ALLOWED = ["me@example.com"];\n`,
      guarantees: "recipientsOnly(ALLOWED)",
    }),
  },
];
