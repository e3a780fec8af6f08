import type { ContractHelper } from "../../src/model/contract.js";

export const emailContracts: ContractHelper[] = [
  {
    name: "recipientsOnly",
    doc: "Every email this program sends or drafts goes only to these addresses.",
    params: [{ name: "addresses", type: "string[]" }],
    build: (addresses: string[]) => ({ op: "email.*", args: { to: { in: [...addresses] } } }),
  },
  {
    name: "atMostEmails",
    doc: "This program sends at most `n` emails (send_email and send_draft together).",
    params: [{ name: "n", type: "number" }],
    build: (n: number) => ({ op: "email.send_*", count: { max: n } }),
  },
  {
    name: "uniqueRecipients",
    doc: "No recipient is sent more than one email by this program.",
    params: [],
    build: () => ({ op: "email.send_*", distinct: "to" }),
  },
];
