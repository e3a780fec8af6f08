import type { AdversarialCase } from "./case.js";
import { mail, prog } from "./program.js";

/**
 * Maps, Sets and computed indexes used to launder a draft's text into a recipient, a count or a
 * choice: each must be covered end to end (the facts keep the draft's provenance, so no receipt
 * admits the run's real call unless the facts cover it).
 */
const rival = [["boss@rival.com"]];

export const collectionCases: AdversarialCase[] = [
  {
    name: "a recipient stored through a second name for a Map",
    expect: "covered",
    reads: rival,
    source: prog(`const d = await getDraft({ id: "1" });
    const m = new Map<string, string>();
    const alias = m;
    alias.set("to", String(d.body));
    await sendEmail(${mail(`[m.get("to") ?? "me@example.com"]`)});`),
  },
  {
    name: "a recipient stored through a helper's parameter, after the Map was read once",
    expect: "covered",
    reads: rival,
    source: prog(
      `const d = await getDraft({ id: "1" });
    const m = new Map<string, string>([["to", "me@example.com"]]);
    await sendEmail(${mail(`[m.get("to") ?? "me@example.com"]`)});
    put(m, String(d.body));
    await sendEmail(${mail(`[m.get("to") ?? "me@example.com"]`)});`,
      { top: `function put(target: Map<string, string>, to: string): void { target.set("to", to); }\n` },
    ),
  },
  {
    name: "recipients de-duplicated through a Set of the draft's addresses",
    expect: "covered",
    reads: [["me@example.com,boss@rival.com,me@example.com"]],
    source: prog(`const d = await getDraft({ id: "1" });
    const to = [...new Set(String(d.body).split(","))];
    await sendEmail(${mail("to")});`),
  },
  {
    name: "an index the draft chooses picks the recipient",
    expect: "covered",
    reads: [["x"], [""]],
    source: prog(`const d = await getDraft({ id: "1" });
    const people = ["me@example.com", "boss@rival.com"];
    const i = Math.min(String(d.body).length, 1);
    await sendEmail(${mail('[people[i] ?? "me@example.com"]')});`),
  },
  {
    name: "the draft's keys decide whether a constant key is present",
    expect: "covered",
    reads: [["admin"], ["nobody"]],
    source: prog(`const d = await getDraft({ id: "1" });
    const m = new Map<string, boolean>([[String(d.body), true]]);
    if (m.get("admin") === true) await sendEmail(${mail(`["boss@rival.com"]`)});`),
  },
  {
    name: "a forEach whose callback grows the Set through its third argument",
    expect: "covered",
    source: prog(
      `new Set(["a"]).forEach((...args: (string | Set<string>)[]) => {
      const owner = args[2];
      if (typeof owner === "object" && owner.size < 4) owner.add(owner.size + "");
      void sendEmail(${mail(`["me@example.com"]`)});
    });`,
      { guarantees: "atMostEmails(1)" },
    ),
  },
  {
    name: "keys added while a for...of walks keys()",
    expect: "covered",
    source: prog(
      `const m = new Map([["a", 1]]);
    for (const k of m.keys()) {
      if (m.size < 4) m.set(k + "x", 1);
      await sendEmail(${mail(`["me@example.com"]`)});
    }`,
      { guarantees: "atMostEmails(1)" },
    ),
  },
  {
    name: "a key from the draft disguised as a number",
    expect: { refused: "computed member access" },
    source: prog(`const d = await getDraft({ id: "1" });
    const box = { key: String(d.body) as string | number };
    const people = ["me@example.com"];
    await sendEmail(${mail('[people[box.key as number] ?? "me@example.com"]')});`),
  },
];
