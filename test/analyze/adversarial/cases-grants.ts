import type { AdversarialCase } from "./case.js";
import { mail, prog } from "./program.js";

const me = `["me@example.com"]`;
const send = (to: string[]) => ({ op: "email.send_email", args: { to, subject: "s", body: "b" } });

/**
 * The receipt's grants against the facts (docs/architecture.md section 8: a run can never leave its facts).
 * Probes are calls outside the facts; a grant that admits one turns any analysis mistake about
 * that value into an effect nobody approved. The last cases are guarantees over several ops.
 */
export const grantCases: AdversarialCase[] = [
  {
    name: "an empty recipient list: the grant leaves `to` open",
    expect: "covered",
    probes: [send(["boss@rival.com"])],
    source: prog(`await sendEmail(${mail("[]")});`),
  },
  {
    name: "a URL whose known prefix holds a `?`: the grant leaves `url` open",
    expect: "covered",
    probes: [{ op: "http.get", args: { url: "https://evil.com/" } }],
    source: prog(`const d = await getDraft({ id: "1" });
    await get({ url: "https://api.example.com/search?q=" + String(d.body) });`),
  },
  {
    name: "a URL with userinfo in the known prefix: the grant leaves `url` open",
    expect: "covered",
    probes: [{ op: "http.get", args: { url: "https://evil.com/" } }],
    source: prog(`const d = await getDraft({ id: "1" });
    await get({ url: "https://me@api.example.com/" + String(d.body) });`),
  },
  {
    name: "a recipient known by its prefix: the approved shape is not in the grant",
    expect: "covered",
    probes: [send(["boss@rival.com"])],
    source: prog(`const d = await getDraft({ id: "1" });
    await sendEmail(${mail(`["me@" + String(d.body)]`)});`),
  },
  {
    name: "atMostEmails(1) over send_email and send_draft: one ledger per op",
    expect: "covered",
    reads: [["go"]],
    source: prog(
      `const d = await getDraft({ id: "1" });
    if (String(d.body) === "go") await sendEmail(${mail(me)});
    if (String(d.body) === "go") await sendDraft({ draft_id: "1" });`,
      { guarantees: "atMostEmails(1)" },
    ),
  },
  {
    name: "a count over every op: one ledger per op",
    expect: "covered",
    reads: [["go"]],
    source: prog(
      `const d = await getDraft({ id: "1" });
    if (String(d.body) === "go") await get({ url: "https://api.example.com/a" });
    if (String(d.body) === "go") await readFile({ path: "/home/u/a" });`,
      { guarantees: `{ op: "*", count: { max: 2 } }` },
    ),
  },
  {
    name: "distinct recipients over draft_email and send_email: one ledger per op",
    expect: "covered",
    reads: [["go"]],
    source: prog(
      `const d = await getDraft({ id: "1" });
    if (String(d.body) === "go") await draftEmail(${mail(me)});
    if (String(d.body) === "go") await sendEmail(${mail(me)});`,
      { guarantees: `{ op: "email.*", distinct: "to" }` },
    ),
  },
  {
    name: "an allow rule's distinct condition is not in the grant",
    expect: "covered",
    source: prog(`const tos = ["me@example.com", "bob@example.com"];
    for (const t of tos) {
      if (t === "me@example.com") { tos[1] = t; await sendEmail(${mail("[t]")}); }
      else await sendEmail(${mail("[t]")});
    }`),
  },
  // Controls: grants that do stand for their facts.
  {
    name: "a constant recipient: the grant lists it",
    expect: "accepted",
    probes: [send(["boss@rival.com"]), send(["me@example.com", "boss@rival.com"])],
    source: prog(`await sendEmail(${mail(me)});`),
  },
  {
    name: "a URL with a plain known prefix: the grant keeps it",
    expect: "accepted",
    probes: [
      { op: "http.get", args: { url: "https://evil.com/" } },
      { op: "http.get", args: { url: "https://api.example.com.evil.com/" } },
    ],
    source: prog(`const d = await getDraft({ id: "1" });
    await get({ url: "https://api.example.com/items/" + String(d.body) });`),
  },
  {
    name: "atMostEmails(1) over one op",
    expect: "accepted",
    reads: [["go"]],
    source: prog(
      `const d = await getDraft({ id: "1" });
    for (const x of String(d.body).split("")) await sendEmail(${mail(me, "x")});`,
      { guarantees: "atMostEmails(1)" },
    ),
  },
];
