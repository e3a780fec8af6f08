import type { AbstractValue, Provenance } from "../../src/model/abstract.js";
import type { GuaranteeStatus } from "../../src/model/facts.js";

/**
 * Realistic programs and what the analysis must find: for each trusted call site in source order,
 * its op, call count [min, max] (null = unbounded) and the arguments we check exactly; and each
 * guarantee's status. Adding a case is adding one entry.
 */
export interface Case {
  name: string;
  top?: string;
  guarantees?: string;
  main: string;
  effects: { op: string; count: [number, number | null]; args?: Record<string, AbstractValue> }[];
  statuses?: GuaranteeStatus[];
}

const c = (...values: unknown[]): AbstractValue => ({ kind: "const", values: values as never[] });
// An op's result names its op: `result of fs.read_file` comes from fs.read_file; `path` is the field read from it.
const from = (source: string, path?: string): Provenance => {
  const op = /^result of (\S+)$/.exec(source)?.[1];
  return op === undefined
    ? { source, untrusted: true }
    : { source, untrusted: true, op, ...(path === undefined ? {} : { path }) };
};
const untrusted = (source: string, path?: string): AbstractValue => ({
  kind: "unknown",
  provenance: [from(source, path)],
});
// String(x) of untrusted data: a string, any string.
const untrustedString = (source: string, path?: string): AbstractValue => ({
  kind: "string",
  prefix: "",
  suffix: "",
  provenance: [from(source, path)],
});
const SEND = `subject: "s", body: "b"`;

export const corpus: Case[] = [
  {
    name: "notify a constant list",
    top: `const TEAM = ["alice@example.com", "bob@example.com"];`,
    guarantees: `recipientsOnly(TEAM), atMostEmails(1)`,
    main: `await sendEmail({ to: TEAM, subject: "Report", body: "Ready." });`,
    effects: [
      {
        op: "email.send_email",
        count: [1, 1],
        args: { to: c(["alice@example.com", "bob@example.com"]), subject: c("Report"), body: c("Ready.") },
      },
    ],
    statuses: ["proven", "proven"],
  },
  {
    name: "for...of over a constant list: one call per element",
    top: `const TEAM = ["a@x.com", "b@x.com", "c@x.com"];`,
    guarantees: `recipientsOnly(TEAM), atMostEmails(3)`,
    main: `for (const to of TEAM) await sendEmail({ to: [to], subject: \`Hi \${to}\`, body: "b" });`,
    effects: [
      {
        op: "email.send_email",
        count: [3, 3],
        args: { to: c(["a@x.com"], ["b@x.com"], ["c@x.com"]), subject: c("Hi a@x.com", "Hi b@x.com", "Hi c@x.com") },
      },
    ],
    statuses: ["proven", "proven"],
  },
  {
    name: "a call after an early return may not run",
    main: `if (Math.random() > 0.5) return;\nawait sendEmail({ to: ["a@x.com"], ${SEND} });`,
    effects: [{ op: "email.send_email", count: [0, 1] }],
  },
  {
    name: "? : joins both branches",
    guarantees: `recipientsOnly(["a@x.com", "b@x.com"])`,
    main: `const to = Math.random() > 0.5 ? "a@x.com" : "b@x.com";\nawait sendEmail({ to: [to], ${SEND} });`,
    effects: [
      {
        op: "email.send_email",
        count: [1, 1],
        args: { to: { kind: "array", element: c("a@x.com", "b@x.com"), length: { min: 1, max: 1 } } },
      },
    ],
    statuses: ["proven"],
  },
  {
    name: "if/else with a call in each branch",
    main: `if (Date.now() > 0) await sendEmail({ to: ["a@x.com"], ${SEND} });\nelse await writeFile({ path: "/home/user/Sandbox/x", content: "c" });`,
    effects: [
      { op: "email.send_email", count: [0, 1] },
      { op: "fs.write_file", count: [0, 1] },
    ],
  },
  {
    name: "a constant condition skips the dead branch",
    top: `const DRY_RUN = false;`,
    guarantees: `noWrites()`,
    main: `if (DRY_RUN) return;\nawait sendEmail({ to: ["a@x.com"], ${SEND} });`,
    effects: [{ op: "email.send_email", count: [1, 1] }],
    statuses: ["proven"],
  },
  {
    name: "while with an unknown condition is unbounded",
    guarantees: `atMostEmails(5)`,
    main: `while (Math.random() > 0.1) await sendEmail({ to: ["a@x.com"], ${SEND} });`,
    effects: [{ op: "email.send_email", count: [0, null] }],
    statuses: ["enforced"],
  },
  {
    name: "a counted for loop is bounded",
    guarantees: `atMostEmails(3)`,
    main: `for (let i = 0; i < 3; i++) await sendEmail({ to: ["a@x.com"], subject: \`Part \${i + 1}\`, body: "b" });`,
    effects: [{ op: "email.send_email", count: [3, 3], args: { subject: c("Part 1", "Part 2", "Part 3") } }],
    statuses: ["proven"],
  },
  {
    name: "a count guarantee the program exceeds is refuted",
    guarantees: `atMostEmails(2)`,
    main: `for (let i = 0; i < 3; i++) await sendEmail({ to: ["a@x.com"], ${SEND} });`,
    effects: [{ op: "email.send_email", count: [3, 3] }],
    statuses: ["refuted"],
  },
  {
    name: "a helper called twice: its site counts twice, arguments joined",
    top: `async function notify(to: string): Promise<void> {\n  await sendEmail({ to: [to], subject: "Hi", body: "b" });\n}`,
    guarantees: `recipientsOnly(["a@x.com", "b@x.com"])`,
    main: `await notify("a@x.com");\nawait notify("b@x.com");`,
    effects: [{ op: "email.send_email", count: [2, 2], args: { to: c(["a@x.com"], ["b@x.com"]) } }],
    statuses: ["proven"],
  },
  {
    name: "recursion is unbounded",
    top: `async function again(n: number): Promise<void> {\n  await sendEmail({ to: ["a@x.com"], subject: "s", body: String(n) });\n  if (n > 0) await again(n - 1);\n}`,
    main: `await again(Math.floor(Math.random() * 10));`,
    effects: [{ op: "email.send_email", count: [1, null] }],
  },
  {
    name: "Promise.all over a literal array of calls",
    main: `await Promise.all([\n  sendEmail({ to: ["a@x.com"], ${SEND} }),\n  writeFile({ path: "/home/user/Sandbox/a", content: "c" }),\n]);`,
    effects: [
      { op: "email.send_email", count: [1, 1] },
      { op: "fs.write_file", count: [1, 1] },
    ],
  },
  {
    name: "Promise.all over map of a constant list",
    top: `const PEOPLE = [{ name: "Ann", email: "ann@x.com" }, { name: "Ben", email: "ben@x.com" }];`,
    guarantees: `recipientsOnly(["ann@x.com", "ben@x.com"]), atMostEmails(2)`,
    main: `await Promise.all(PEOPLE.map((p) => sendEmail({ to: [p.email], subject: \`Hi \${p.name}\`, body: "b" })));`,
    effects: [
      {
        op: "email.send_email",
        count: [2, 2],
        args: { to: c(["ann@x.com"], ["ben@x.com"]), subject: c("Hi Ann", "Hi Ben") },
      },
    ],
    statuses: ["proven", "proven"],
  },
  {
    name: "calls inside try may be cut short by a throw",
    main: `try {\n  const r = await get({ url: "https://api.example.com/x" });\n  await post({ url: "https://api.example.com/y", body: String(r.body) });\n} catch (e) {\n  await sendEmail({ to: ["ops@x.com"], subject: "failed", body: String(e) });\n}`,
    effects: [
      { op: "http.get", count: [0, 1] },
      { op: "http.post", count: [0, 1] },
      { op: "email.send_email", count: [0, 1], args: { body: untrustedString("a caught error") } },
    ],
  },
  {
    name: "destructuring a constant object",
    top: `const MESSAGE = { to: ["a@x.com"], subject: "Hello", body: "World" };`,
    main: `const { to, subject, ...rest } = MESSAGE;\nawait sendEmail({ to, subject, body: "b" });`,
    effects: [
      { op: "email.send_email", count: [1, 1], args: { to: c(["a@x.com"]), subject: c("Hello"), body: c("b") } },
    ],
  },
  {
    name: "a template literal keeps the known prefix and suffix",
    guarantees: `writesUnder("/home/user/Sandbox")`,
    main: `const name = String(Date.now());\nawait writeFile({ path: \`/home/user/Sandbox/reports/\${name}.md\`, content: "c" });`,
    effects: [
      {
        op: "fs.write_file",
        count: [1, 1],
        args: {
          path: {
            kind: "string",
            prefix: "/home/user/Sandbox/reports/",
            suffix: ".md",
            provenance: [{ source: "Date.now()", untrusted: false }],
          },
        },
      },
    ],
    statuses: ["enforced"],
  },
  {
    name: "string concatenation of constants is exact",
    top: `const DIR = "/home/user/Sandbox";`,
    guarantees: `writesUnder(DIR)`,
    main: `await writeFile({ path: DIR + "/" + "notes.txt", content: "c" });`,
    effects: [{ op: "fs.write_file", count: [1, 1], args: { path: c("/home/user/Sandbox/notes.txt") } }],
    statuses: ["proven"],
  },
  {
    name: "a file read flows into a write: untrusted",
    main: `const f = await readFile({ path: "/home/user/Sandbox/in.txt" });\nawait writeFile({ path: "/home/user/Sandbox/out.txt", content: String(f.content).trim() });`,
    effects: [
      { op: "fs.read_file", count: [1, 1], args: { path: c("/home/user/Sandbox/in.txt") } },
      { op: "fs.write_file", count: [1, 1], args: { content: untrusted("result of fs.read_file", "$.content") } },
    ],
  },
  {
    name: "fetch then post to allowlisted hosts",
    guarantees: `onlyHosts(["api.example.com"])`,
    main: `const r = await get({ url: "https://api.example.com/status" });\nawait post({ url: "https://api.example.com/report", body: JSON.stringify({ ok: true }), content_type: "application/json" });`,
    effects: [
      { op: "http.get", count: [1, 1] },
      {
        op: "http.post",
        count: [1, 1],
        args: { url: c("https://api.example.com/report"), body: c('{"ok":true}'), content_type: c("application/json") },
      },
    ],
    statuses: ["proven"],
  },
  {
    name: "a recipient outside the promise is refuted",
    guarantees: `recipientsOnly(["bob@example.com"])`,
    main: `await sendEmail({ to: ["bob@example.com", "eve@evil.example"], ${SEND} });`,
    effects: [{ op: "email.send_email", count: [1, 1] }],
    statuses: ["refuted"],
  },
  {
    name: "let with reassignment",
    guarantees: `recipientsOnly(["b@x.com"])`,
    main: `let to = "a@x.com";\nto = "b@x.com";\nawait sendEmail({ to: [to], ${SEND} });`,
    effects: [{ op: "email.send_email", count: [1, 1], args: { to: c(["b@x.com"]) } }],
    statuses: ["proven"],
  },
  {
    name: "push onto a fresh array is followed exactly",
    guarantees: `recipientsOnly(["a@x.com", "b@x.com"])`,
    main: `const list: string[] = [];\nlist.push("a@x.com");\nlist.push("b@x.com");\nawait sendEmail({ to: list, ${SEND} });`,
    effects: [{ op: "email.send_email", count: [1, 1], args: { to: c(["a@x.com", "b@x.com"]) } }],
    statuses: ["proven"],
  },
  {
    name: "mutation through an alias makes the array unknown",
    guarantees: `recipientsOnly(["bob@x.com"])`,
    main: `const a = ["bob@x.com"];\nconst b = a;\nb.push("eve@x.com");\nawait sendEmail({ to: a, ${SEND} });`,
    effects: [{ op: "email.send_email", count: [1, 1] }],
    statuses: ["enforced"],
  },
  {
    name: "a variable changed by a closure is unknown",
    guarantees: `recipientsOnly(["bob@x.com"])`,
    main: `let to = "bob@x.com";\nconst change = (): void => {\n  to = "eve@x.com";\n};\nchange();\nawait sendEmail({ to: [to], ${SEND} });`,
    effects: [{ op: "email.send_email", count: [1, 1] }],
    statuses: ["enforced"],
  },
  {
    name: "a callback that runs later sees later writes",
    guarantees: `recipientsOnly(["bob@x.com"])`,
    main: `let to = "bob@x.com";\nconst p = Promise.resolve().then(() => sendEmail({ to: [to], ${SEND} }));\nto = "eve@x.com";\nawait p;`,
    effects: [{ op: "email.send_email", count: [0, null] }],
    statuses: ["enforced"],
  },
  {
    name: "draft then send the draft",
    guarantees: `atMostEmails(1)`,
    main: `const d = await draftEmail({ to: ["bob@x.com"], ${SEND} });\nawait sendDraft({ draft_id: String(d.id) });`,
    effects: [
      { op: "email.draft_email", count: [1, 1], args: { to: c(["bob@x.com"]) } },
      {
        op: "email.send_draft",
        count: [1, 1],
        args: { draft_id: untrustedString("result of email.draft_email", "$.id") },
      },
    ],
    statuses: ["proven"],
  },
  {
    name: "a draft's body forwarded is untrusted",
    main: `const d = await getDraft({ id: "r-123" });\nconst body = typeof d.body === "string" ? d.body : "";\nawait sendEmail({ to: ["bob@x.com"], subject: "Fwd", body });`,
    effects: [
      { op: "email.get_draft", count: [1, 1], args: { id: c("r-123") } },
      { op: "email.send_email", count: [1, 1] },
    ],
  },
  {
    name: "noWrites holds with no write and is refuted by one",
    guarantees: `noWrites()`,
    main: `await writeFile({ path: "/home/user/Sandbox/x", content: "c" });`,
    effects: [{ op: "fs.write_file", count: [1, 1] }],
    statuses: ["refuted"],
  },
  {
    name: "a field written on a fresh object",
    main: `const msg = { to: ["a@x.com"], subject: "draft", body: "b" };\nmsg.subject = "final";\nawait sendEmail(msg);`,
    effects: [
      { op: "email.send_email", count: [1, 1], args: { to: c(["a@x.com"]), subject: c("final"), body: c("b") } },
    ],
  },
  {
    name: "break out of a loop over a constant list",
    top: `const TEAM = ["a@x.com", "b@x.com", "c@x.com"];`,
    main: `for (const to of TEAM) {\n  if (Math.random() > 0.5) break;\n  await sendEmail({ to: [to], ${SEND} });\n}`,
    effects: [{ op: "email.send_email", count: [0, 3] }],
  },
  {
    name: "forEach with an async callback",
    top: `const TEAM = ["a@x.com", "b@x.com"];`,
    guarantees: `recipientsOnly(TEAM)`,
    main: `TEAM.forEach(async (to) => {\n  await sendEmail({ to: [to], ${SEND} });\n});`,
    effects: [{ op: "email.send_email", count: [2, 2], args: { to: c(["a@x.com"], ["b@x.com"]) } }],
    statuses: ["proven"],
  },
  {
    name: "one write per entry of a listed directory",
    guarantees: `writesUnder("/home/user/Sandbox/out")`,
    main: `const listing = await listDir({ path: "/home/user/Sandbox/in" });\nconst names = Array.isArray(listing.entries) ? listing.entries : [];\nfor (const name of names) {\n  await writeFile({ path: \`/home/user/Sandbox/out/\${String(name)}\`, content: "seen" });\n}`,
    effects: [
      { op: "fs.list_dir", count: [1, 1] },
      { op: "fs.write_file", count: [0, null] },
    ],
    statuses: ["enforced"],
  },
  {
    name: "?? and || defaults",
    guarantees: `recipientsOnly(["a@x.com"])`,
    main: `const configured: string | null = null;\nconst to = configured ?? "a@x.com";\nconst given: string = "";\nconst subject = given || "Default subject";\nawait sendEmail({ to: [to], subject, body: "b" });`,
    effects: [{ op: "email.send_email", count: [1, 1], args: { to: c(["a@x.com"]), subject: c("Default subject") } }],
    statuses: ["proven"],
  },
  {
    name: "string methods on constants are computed",
    guarantees: `recipientsOnly(["bob@example.com"])`,
    main: `const to = "  BOB@Example.com ".trim().toLowerCase();\nawait sendEmail({ to: [to], subject: ["a", "b"].join("-"), body: "b" });`,
    effects: [{ op: "email.send_email", count: [1, 1], args: { to: c(["bob@example.com"]), subject: c("a-b") } }],
    statuses: ["proven"],
  },
  {
    name: "a unicode escape does not hide a trusted call",
    guarantees: `atMostEmails(0)`,
    main: `await s\\u0065ndEmail({ to: ["a@x.com"], ${SEND} });`,
    effects: [{ op: "email.send_email", count: [1, 1] }],
    statuses: ["refuted"],
  },
  {
    name: "a const arrow helper and an IIFE",
    top: `const write = async (name: string): Promise<void> => {\n  await writeFile({ path: "/home/user/Sandbox/" + name, content: "c" });\n};`,
    guarantees: `writesUnder("/home/user/Sandbox")`,
    main: `await write("a.txt");\nawait (async () => {\n  await write("b.txt");\n})();`,
    effects: [
      { op: "fs.write_file", count: [2, 2], args: { path: c("/home/user/Sandbox/a.txt", "/home/user/Sandbox/b.txt") } },
    ],
    statuses: ["proven"],
  },
  {
    name: "do...while runs its body at least once",
    main: `let n = 0;\ndo {\n  await sendEmail({ to: ["a@x.com"], ${SEND} });\n  n++;\n} while (n < 2);`,
    effects: [{ op: "email.send_email", count: [2, 2] }],
  },
  {
    name: "push inside a loop over unknown data",
    guarantees: `recipientsOnly(["a@x.com"])`,
    main: `const r = await get({ url: "https://api.example.com/people" });\nconst people = Array.isArray(r.body) ? r.body : [];\nconst to: string[] = ["a@x.com"];\nfor (const p of people) to.push(String(p));\nawait sendEmail({ to, ${SEND} });`,
    effects: [
      { op: "http.get", count: [1, 1] },
      { op: "email.send_email", count: [1, 1] },
    ],
    statuses: ["enforced"],
  },
  {
    name: "a function passed as a value may run any number of times",
    top: `async function ping(): Promise<void> {\n  await get({ url: "https://api.example.com/ping" });\n}`,
    main: `const tasks = [ping];\nawait Promise.all(tasks.map((t) => t()));`,
    effects: [{ op: "http.get", count: [0, null] }],
  },
  {
    name: "no trusted call at all",
    guarantees: `{ op: "*", count: { max: 0 } }`,
    main: `const x = [1, 2, 3].map((n) => n * 2);\nif (x.length > 5) throw new Error("impossible");`,
    effects: [],
    statuses: ["proven"],
  },
];
