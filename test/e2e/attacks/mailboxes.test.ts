// Mailboxes: the policy denies mail to ceo@example.com and asks before mail to cfo@example.com;
// everyone else at example.com is allowed. The program writes those mailboxes another way (case,
// trailing dot, +tag, display name, quotes, two addresses in one string, a header smuggled in).
// Nobody approves anything here, so the provider must never be asked to deliver to either.
import { describe, expect, it } from "vitest";
import { inBatches, mailbox, program, SLOW, useWorld } from "./world.js";

const w = useWorld({
  policies: () => ({
    "attacks.toml": `default = "deny"

[[rules]]
id = "email.no-ceo"
decision = "deny"
op = "email.send_email"
when = { args = { to = { in = ["ceo@example.com"] } } }
reason = "never mail the CEO"

[[rules]]
id = "email.ask-cfo"
decision = "ask"
op = "email.send_email"
when = { args = { to = { in = ["cfo@example.com"] } } }
reason = "mail to the CFO needs a look"

[[rules]]
id = "email.colleagues"
decision = "allow"
op = "email.send_email"
when = { args = { to = { glob = "*@example.com" } } }
`,
  }),
});

const send = (to: string[], subject = "Hello", body = "Hi.") =>
  program(
    `    await sendEmail({ to: ${JSON.stringify(to)}, subject: ${JSON.stringify(subject)}, body: ${JSON.stringify(body)} });`,
    { imports: `import { sendEmail } from "trusted/email";` },
  );

/** Run each program; a run the policy asks about expires after 2 s with nobody there. */
async function attempt(programs: { label: string; source: string }[]): Promise<string> {
  const said = await inBatches(programs, async ({ label, source }) => {
    const r = await w.run(source, { args: ["--timeout", "2"] });
    return `${label} -> exit ${r.code}: ${r.stdout.split("\n")[1] ?? ""} ${r.stderr.split("\n")[0]}`;
  });
  return said.join("\n");
}

/** Recipients for `who`'s mailbox among the messages sent since `from` recipients were counted. */
const reached = (who: string, from = 0) =>
  w.mail
    .recipients()
    .slice(from)
    .filter((r) => mailbox(r) === who);

function variants(local: string): string[][] {
  const upper = local.toUpperCase();
  return [
    [`${local}+x@example.com`],
    [`${upper}@Example.com.`],
    [`${local}@example.com.`],
    [`${local}@EXAMPLE.COM`],
    [`${upper}+Board@example.com`],
    [`"${local}"@example.com`],
    [`Boss <${local}@example.com>`],
    [`bob@example.com, ${local}@example.com`],
    [`bob@example.com,${local}@example.com`],
    [`bob@example.com\r\nBcc: ${local}@example.com`],
    [`bob@example.com\nCc: ${local}@example.com`],
    [` ${local}@example.com`],
    [`${local}@example.com `],
    [`${local}@example.com\t`],
    ["bob@example.com", `${local}+y@example.com`],
  ];
}

describe("a denied mailbox written another way", () => {
  it(
    "the provider never gets a message for ceo@example.com",
    async () => {
      const said = await attempt(variants("ceo").map((to) => ({ label: JSON.stringify(to), source: send(to) })));
      expect(reached("ceo@example.com"), said).toEqual([]);
      // The control: a colleague is mailed without asking.
      await attempt([{ label: "control", source: send(["bob@example.com"]) }]);
      expect(w.mail.recipients().map(mailbox)).toContain("bob@example.com");
    },
    SLOW,
  );

  it(
    "a header smuggled in the subject or the body does not add the CEO",
    async () => {
      const from = w.mail.recipients().length;
      const said = await attempt([
        { label: "subject CRLF", source: send(["bob@example.com"], "Hi\r\nBcc: ceo@example.com") },
        { label: "subject LF", source: send(["bob@example.com"], "Hi\nCc: ceo@example.com") },
        { label: "subject CR", source: send(["bob@example.com"], "Hi\rBcc: ceo@example.com") },
        { label: "body first line", source: send(["bob@example.com"], "Hi", "\r\nBcc: ceo@example.com\r\n") },
      ]);
      expect(reached("ceo@example.com", from), said).toEqual([]);
    },
    SLOW,
  );
});

describe("a mailbox the policy asks about, written another way", () => {
  it(
    "the provider never gets a message for cfo@example.com without a person",
    async () => {
      const said = await attempt(variants("cfo").map((to) => ({ label: JSON.stringify(to), source: send(to) })));
      expect(reached("cfo@example.com"), said).toEqual([]);
    },
    SLOW,
  );
});
