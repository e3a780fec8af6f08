// "Who gets the email?" for send_draft, whose recipients the trusted wrapper reads from the draft
// before the send: with the decision, the answer also says what the allow rule that passed the
// send lets them be (the receipt's grant carries the rule's condition). The real analyzer, the
// shipped manifests and a policy loaded from files.
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { answerQuestion } from "../../src/app/answer-question.js";
import { loadPolicy } from "../../src/config/index.js";
import { decide, type Policy } from "../../src/policy/index.js";
import { policyDir, shippedManifests } from "../policy/helpers.js";

const manifests = shippedManifests();
const analyzer = createAnalyzer(manifests);
afterAll(() => analyzer.dispose());

const DRAFTS_TO_TEAM = `default = "ask"

[[rules]]
id = "drafts-to-team"
decision = "allow"
op = "email.send_draft"
when = { args = { to = { in = ["bob@example.com", "carol@example.com"] } } }
reason = "drafts to the team may go out"
`;
const load = (text: string): Policy =>
  loadPolicy(policyDir({ "policy.toml": text }), { manifests, home: "/home/user" });
const draftsToTeam = load(DRAFTS_TO_TEAM);
const askEverything = load(`default = "ask"\n`);

/** Sends the draft `id` (the program knows only its id), then mails Dave, which the policy asks about; `guarantees` as written. */
const sendDraftThenMail = (guarantees = "[]") => `import { program } from "countersign";
import { sendDraft, sendEmail } from "trusted/email";
import { recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "Send the waiting draft, then tell Dave.",
  guarantees: ${guarantees},
  async main() {
    await sendDraft({ draft_id: "d-1" });
    await sendEmail({ to: ["dave@example.com"], subject: "Sent", body: "The draft went out." });
  },
});
`;

function answer(source: string, policy: Policy, rules: Policy["rules"] | null = policy.rules) {
  const facts = analyzer.analyze(source, { entry: "program.ts" });
  expect(facts.diagnostics).toEqual([]);
  const decision = decide(facts, policy, manifests);
  return { decision, lines: answerQuestion(facts, "Who gets the email?", manifests, { decision, rules })!.lines };
}

const SEND =
  "At line 9 it sends a draft email once, to the recipients of the draft it sends: the preview is not part of this answer, so its recipients are not known here (read from email.get_draft for the call's draft id when it runs)";
const READ = `${SEND}; when it is sent, the draft is read again and its recipients are checked against the guarantees and what you approved, and a send outside them is refused; a draft is sent to its To addresses only`;

describe("who gets a draft that an allow rule on its recipients passed", () => {
  it("read from the draft at the send, and only the addresses the rule allows, in the rule's terms", () => {
    const { decision, lines } = answer(sendDraftThenMail(), draftsToTeam);
    expect(decision.effects.map((v) => [v.op, v.verdict, v.rule])).toEqual([
      ["email.send_draft", "allow", "drafts-to-team"],
      ["email.send_email", "ask", null],
    ]);
    expect(lines).toEqual([
      `${READ}; the allow rule "drafts-to-team" lets it through only when every To address is in [bob@example.com, carol@example.com].`,
      "At line 10 it sends an email once, to dave@example.com.",
    ]);
  });

  it("the rule's own terms, not the grant's, when a guarantee narrows the recipients too", () => {
    const { decision, lines } = answer(
      sendDraftThenMail('[recipientsOnly(["bob@example.com", "dave@example.com"])]'),
      draftsToTeam,
    );
    // The grant holds both conditions; the answer names the rule's and the guarantee's line follows.
    expect(decision.grants.find((g) => g.op === "email.send_draft")!.args.to).toMatchObject({
      all: [expect.anything(), expect.anything()],
    });
    expect(lines[0]).toBe(
      `${READ}; the allow rule "drafts-to-team" lets it through only when every To address is in [bob@example.com, carol@example.com].`,
    );
    expect(lines[2]).toMatch(
      /^Guarantee recipientsOnly\(\["bob@example\.com", "dave@example\.com"\]\): enforced at run time/,
    );
  });

  it("when that policy has changed since, the receipt's grant's terms, saying so", () => {
    const { lines } = answer(sendDraftThenMail(), draftsToTeam, null);
    expect(lines[0]).toBe(
      `${READ}; the allow rule "drafts-to-team" lets it through only when the approval's terms hold, as that policy has changed since: every To address is in [bob@example.com, carol@example.com].`,
    );
  });

  it("no allow rule passed the send: only the read, as without the decision", () => {
    const facts = analyzer.analyze(sendDraftThenMail(), { entry: "program.ts" });
    const without = answerQuestion(facts, "Who gets the email?", manifests)!.lines;
    expect(without[0]).toBe(`${READ}.`);
    expect(answer(sendDraftThenMail(), askEverything).lines).toEqual(without);
  });
});
