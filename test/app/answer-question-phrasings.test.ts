// The questions a person can ask about a request, in many phrasings, over facts the real analyzer
// and the shipped policy produce for the examples: which topic each is understood as, countersign's
// own words of it, the lines of the answer (plain sentences, no code marks), and the texts that ask
// for a change and so are never answered here but go to the agent.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { answerQuestion, questionNeedsPreviews, type TopicName } from "../../src/app/answer-question.js";
import { loadPolicy } from "../../src/config/index.js";
import type { PreviewShown, StoredRequest } from "../../src/model/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { shippedManifests } from "../policy/helpers.js";
import { storedRequest } from "../support/stored-request.js";

const manifests = shippedManifests();
const policy = loadPolicy(join(packageRoot, "policies"), { manifests, home: "/home/user" });
const analyzer = createAnalyzer(manifests);
afterAll(() => analyzer.dispose());

function stored(source: string, entry: string, extra: Partial<StoredRequest> = {}): StoredRequest {
  const request = storedRequest({ analyzer, policy, manifests }, source, entry, extra);
  expect(request.facts.diagnostics).toEqual([]);
  return request;
}
const example = (name: string) => stored(readFileSync(join(packageRoot, "examples", name), "utf8"), name);
const ask = (request: StoredRequest, text: string, previews?: readonly PreviewShown[]) =>
  answerQuestion(
    request.facts,
    text,
    manifests,
    { decision: request.policy, rules: policy.rules },
    { request, ...(previews === undefined ? {} : { previews }) },
  );

const notify = example("notify-team.ts");
const digest = example("team-digest.ts");
const fetchPost = example("fetch-and-post.ts");
const readNotes = example("read-notes.ts");
const weekly = example("weekly-report.ts");
const draft = example("draft-and-send.ts");

/** Sends the draft "d-1", whose recipients, subject and body only the preview shows. */
const sendDraft = stored(
  `import { program } from "countersign";
import { sendDraft } from "trusted/email";
import { recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "Send the waiting draft.",
  guarantees: [recipientsOnly(["bob@example.com"])],
  async main() {
    await sendDraft({ draft_id: "d-1" });
  },
});
`,
  "send-draft.ts",
);

describe("phrasings: each is understood as its topic, restated in countersign's words", () => {
  const table: [string, TopicName[], string][] = [
    // who gets mail
    ["Who will be emailed?", ["recipients"], "Who will be emailed?"],
    ["who gets the email?", ["recipients"], "Who will be emailed?"],
    ["Who receives this?", ["recipients"], "Who will be emailed?"],
    ["Who does it send to?", ["recipients"], "Who will be emailed?"],
    ["Who is it sent to", ["recipients"], "Who will be emailed?"],
    ["To whom is the mail sent?", ["recipients"], "Who will be emailed?"],
    ["Recipients?", ["recipients"], "Who will be emailed?"],
    ["list the recipients", ["recipients"], "Who will be emailed?"],
    ["Tell me the addressees.", ["recipients"], "Who will be emailed?"],
    ["Which addresses will be mailed?", ["recipients"], "Who will be emailed?"],
    ["Where does the email go to?", ["recipients"], "Who will be emailed?"],
    ["Who is cc'd?", ["recipients"], "Who will be emailed (Cc)?"],
    ["who's on bcc?", ["recipients"], "Who will be emailed (Bcc)?"],
    ["Can you tell me who gets the draft?", ["recipients"], "Who will be emailed?"],
    ["How many people get it?", ["recipients"], "Who will be emailed?"],
    // how many
    ["How many emails will it send?", ["email_count"], "How many emails will be sent?"],
    ["how many messages", ["email_count"], "How many emails will be sent?"],
    ["What is the number of emails?", ["email_count"], "How many emails will be sent?"],
    // files
    ["tell me what files will be written", ["files"], "Which files will be written?"],
    ["Tell me what files will be written.", ["files"], "Which files will be written?"],
    ["Show me the files it writes", ["files"], "Which files will be written?"],
    ["What files will be written?", ["files"], "Which files will be written?"],
    ["Which files does it read?", ["files"], "Which files will be read?"],
    ["what folders does it list", ["files"], "Which files will be read?"],
    ["Which files?", ["files"], "Which files will be read or written?"],
    ["what paths does it touch?", ["files"], "Which files will be written?"],
    ["Which directories will be read or written?", ["files"], "Which files will be read or written?"],
    ["What will it write?", ["files"], "Which files will be written?"],
    ["Where will it save things?", ["files"], "Which files will be written?"],
    ["Please list the files it reads", ["files"], "Which files will be read?"],
    // hosts
    ["Which hosts?", ["hosts"], "Which web addresses will the program call?"],
    ["What websites does it visit?", ["hosts"], "Which web addresses will the program call?"],
    ["which domains", ["hosts"], "Which web addresses will the program call?"],
    ["What URLs will it call?", ["hosts"], "Which web addresses will the program call?"],
    ["which API endpoints does it call?", ["hosts"], "Which web addresses will the program call?"],
    ["What servers does it connect to?", ["hosts"], "Which web addresses will the program call?"],
    ["Does it go on the internet?", ["hosts"], "Which web addresses will the program call?"],
    // body, subject
    ["What does the body say?", ["body"], "What does the email say?"],
    ["What does the email say?", ["body"], "What does the email say?"],
    ["what's in the message?", ["body"], "What does the email say?"],
    ["Show me the email text", ["body"], "What does the email say?"],
    ["What is the content of the draft?", ["body"], "What does the email say?"],
    ["What does it post?", ["body"], "What does the program send to web addresses?"],
    ["What will it write into the file?", ["body"], "What will be written into the files?"],
    ["What is the subject?", ["subject"], "What is the subject of the email?"],
    ["what's the subject line", ["subject"], "What is the subject of the email?"],
    // untrusted
    ["What is untrusted?", ["untrusted"], "Which values come from third-party content?"],
    ["Which values come from third-party content?", ["untrusted"], "Which values come from third-party content?"],
    ["Where do the values come from?", ["untrusted"], "Which values come from third-party content?"],
    ["Is any of it from the internet?", ["untrusted"], "Which values come from third-party content?"],
    ["Could this be a prompt injection?", ["untrusted"], "Which values come from third-party content?"],
    // deciding
    ["What happens if I approve?", ["approve"], "What will the program do if I approve?"],
    ["what happens when I approve it", ["approve"], "What will the program do if I approve?"],
    ["What will happen?", ["approve"], "What will the program do if I approve?"],
    ["What does this program do?", ["approve"], "What will the program do if I approve?"],
    ["Summarize", ["approve"], "What will the program do if I approve?"],
    ["What happens if I reject?", ["reject"], "What happens if I reject?"],
    ["What if I say no?", ["reject"], "What happens if I reject?"],
    // sends, deletes, how often, reads, guarantees
    ["Is anything sent?", ["sends"], "Does the program send anything out?"],
    ["Does it send anything?", ["sends"], "Does the program send anything out?"],
    ["Will any data leave?", ["sends"], "Does the program send anything out?"],
    ["Is anything deleted?", ["deletes"], "Does the program delete anything?"],
    ["Will it remove any files?", ["deletes"], "Does the program delete anything?"],
    ["Does it overwrite anything?", ["deletes"], "Does the program delete anything?"],
    ["Does it run more than once?", ["times"], "How many times will the program run, and make each call?"],
    ["How many times does it run?", ["times"], "How many times will the program run, and make each call?"],
    ["how often", ["times"], "How many times will the program run, and make each call?"],
    ["What does the program read?", ["reads"], "What does the program read?"],
    ["What data does it access?", ["reads"], "What does the program read?"],
    ["What does it guarantee?", ["guarantees"], "What does the program guarantee?"],
    ["Is it proven?", ["guarantees"], "What does the program guarantee?"],
    // several questions at once, each answered
    [
      "Who gets the email and what does it say?",
      ["recipients", "body"],
      "Who will be emailed? What does the email say?",
    ],
    [
      "Who will be emailed? How many emails?",
      ["recipients", "email_count"],
      "Who will be emailed? How many emails will be sent?",
    ],
    ["Which files will be read and written?", ["files"], "Which files will be read or written?"],
    [
      "Who is emailed, and which hosts?",
      ["recipients", "hosts"],
      "Who will be emailed? Which web addresses will the program call?",
    ],
  ];

  it.each(table)("%s", (text, topics, question) => {
    const answer = ask(digest, text);
    expect(answer, text).not.toBeNull();
    expect(answer!.topics).toEqual(topics);
    expect(answer!.topic).toBe(topics[0]);
    expect(answer!.question).toBe(question);
    expect(answer!.lines.length).toBeGreaterThan(0);
  });
});

describe("texts that ask for a change (or for nothing the facts say): not answered, for the agent", () => {
  const refused = [
    "Send it to Alice only, please.",
    "Send it to Alice only?",
    "Who will be emailed? Also remove Bob.",
    "Who will be emailed, and remove Bob",
    "Who will be emailed and send it to carol",
    "Who gets it? Add carol@example.com.",
    "Who will be emailed, but not Bob?",
    "Can you remove Bob?",
    "Could you send it to Alice instead?",
    "Please add carol@example.com",
    "Don't send it to Bob.",
    "Do not email Bob",
    "Which files will be written? Write them under /tmp instead.",
    "What files will be written? Use /tmp.",
    "I want it to go to Alice only. Who gets it?",
    "Should it email Carol too?",
    "Add a subject line",
    "Remove the log file",
    "Make it shorter",
    "Change the subject to Hello?",
    "Why do you need this?",
    "Who wrote this program?",
    "What is the weather?",
    "Approve it",
    "Go ahead",
    "Who gets it, then cancel",
    "",
    "   ",
    "who\nis emailed?",
    `who ${"x".repeat(300)}?`,
  ];
  it.each(refused)("%j", (text) => {
    expect(ask(notify, text)).toBeNull();
    expect(questionNeedsPreviews(text)).toBe(false);
  });
});

describe("the answers, in plain sentences", () => {
  const topics = [
    "Who will be emailed?",
    "How many emails?",
    "Which files?",
    "Which hosts?",
    "What does the body say?",
    "What is the subject?",
    "What is untrusted?",
    "What happens if I approve?",
    "What happens if I reject?",
    "Is anything sent?",
    "Is anything deleted?",
    "Does it run more than once?",
    "What does the program read?",
    "What does it guarantee?",
  ];
  const requests = { notify, digest, fetchPost, readNotes, weekly, draft, sendDraft };

  it("no code marks, no '1 calls', one line per sentence, for every topic and example", () => {
    for (const [name, request] of Object.entries(requests)) {
      for (const text of topics) {
        const answer = ask(request, text);
        expect(answer, `${name}: ${text}`).not.toBeNull();
        for (const line of answer!.lines) {
          expect(line, `${name}: ${text}`).not.toMatch(/`/);
          expect(line, `${name}: ${text}`).not.toMatch(/\b1 [\w.*]+ calls\b|\b1 calls\b/);
          expect(line, `${name}: ${text}`).not.toMatch(/[\r\n]/);
        }
      }
    }
  });

  it("who will be emailed: the recipients of every send, and the guarantees about them", () => {
    expect(ask(notify, "Who will be emailed?")!.lines).toEqual([
      "At line 12 it sends an email once, to alice@example.com and bob@example.com.",
      "Guarantee recipientsOnly(TEAM): proven (every to is in [alice@example.com, bob@example.com])",
    ]);
    expect(ask(fetchPost, "Who will be emailed?")!.lines).toEqual(["Nobody: the program sends no email."]);
    expect(ask(notify, "Who is cc'd?")!.lines).toEqual(["At line 12 it sends an email once, with no Cc address."]);
  });

  it("how many emails: the total and each call; a loop of sends counted", () => {
    expect(ask(notify, "how many emails will it send?")!.lines).toEqual([
      "Exactly 1 email.",
      "At line 12 it sends an email once.",
      "Guarantee atMostEmails(1): proven (at most 1 email.send_* call (bound 1))",
    ]);
    expect(ask(digest, "how many emails will it send?")!.lines[0]).toBe("Exactly 3 emails.");
    expect(ask(readNotes, "how many emails will it send?")!.lines[0]).toBe("None: the program sends no email.");
  });

  it("tell me what files will be written: the writes, with their content; reads when asked about reads", () => {
    expect(ask(weekly, "tell me what files will be written")!.lines).toEqual([
      "At line 18 it writes a file once (creating it, or replacing what it held): /home/user/Sandbox/reports/weekly.md, with the content: a text known only when it runs, from a value changed in a loop and the file week.md (third-party content).",
      'Guarantee writesUnder("${SANDBOX}/reports"): proven (every path is under /home/user/Sandbox/reports)',
    ]);
    expect(ask(readNotes, "tell me what files will be written")!.lines[0]).toBe("None: the program writes no file.");
    expect(ask(readNotes, "what files will be read?")!.lines.slice(0, 2)).toEqual([
      "At line 13 it lists a folder once: /home/user/Sandbox/notes.",
      "At line 15 it reads a file twice: one of /home/user/Sandbox/notes/monday.md or /home/user/Sandbox/notes/tuesday.md.",
    ]);
  });

  it("which hosts: every web address and its host", () => {
    expect(ask(fetchPost, "Which websites?")!.lines.slice(0, 2)).toEqual([
      "At line 13 it fetches a web address once: https://ci.example.com/api/status (host ci.example.com).",
      "At line 15 it sends data to a web address once (an HTTP POST): https://chat.example.com/hooks/team (host chat.example.com).",
    ]);
  });

  it("the body and subject: quoted constants, one per mail", () => {
    expect(ask(notify, "What does the body say?")!.lines).toEqual([
      'At line 12 it sends an email once; its body is "The weekly report is in /home/user/Sandbox/reports.".',
    ]);
    expect(ask(notify, "What is the subject?")!.lines).toEqual([
      'At line 12 it sends an email once; its subject is "Weekly report ready".',
    ]);
  });

  it("what is untrusted: third-party sources by name; the program's own draft is not third-party", () => {
    expect(ask(notify, "What is untrusted?")!.lines).toEqual([
      "None: no value the program passes comes from third-party content.",
    ]);
    expect(ask(fetchPost, "What is untrusted?")!.lines).toEqual([
      "These values may be chosen by third-party content (the agent or someone else may control it):",
      "Whether line 15 runs, how often and with which values may depend on the answer from ci.example.com (third-party content).",
    ]);
    const own = ask(draft, "What is untrusted?")!.lines;
    expect(own[0]).toBe("None: no value the program passes comes from third-party content.");
    expect(own).toContain(
      "At line 16 (it sends a draft email), its draft id comes from what the program's own email.draft_email call made (its own, not third-party content).",
    );
  });

  it("what happens if I approve: the headline, one run, the receipt's lifetime, the guarantees", () => {
    const lines = ask(notify, "What happens if I approve?")!.lines;
    expect(lines[0]).toBe(
      "If you approve, the program runs once and sends 1 email to alice@example.com and bob@example.com.",
    );
    expect(lines).toContain(
      `Approving gives the agent a receipt for exactly this program (its fingerprint starts ${notify.facts.program.sha256.slice(0, 12)}), valid for 5 minutes once issued; after a receipt is used, no other is issued for this request.`,
    );
    expect(lines.filter((l) => l.startsWith("Guarantee "))).toHaveLength(3);
    const decided = ask({ ...notify, status: "rejected" }, "What happens if I approve?")!.lines;
    expect(decided[0]).toBe("This request is no longer waiting for a decision: it was rejected.");
  });

  it("what happens if I reject: nothing runs; the reason goes to the agent; the deadline", () => {
    expect(ask(notify, "What happens if I reject?")!.lines).toEqual([
      "If you reject, the request ends with the reason you write: no receipt is issued, so the program does not run and none of its calls happen.",
      "The agent is told that it was rejected, and your reason.",
      "To have the agent change the program instead, write what to change: that goes to the agent as a request for changes, and it can submit a new program.",
      "If nobody decides before 2030-01-01 00:15 UTC, the request expires and the program does not run.",
    ]);
  });

  it("is anything sent or deleted; how often; what it reads", () => {
    expect(ask(readNotes, "Is anything sent?")!.lines.slice(0, 2)).toEqual([
      "Yes: line 17 sends something out.",
      "At line 17 it fetches a web address once: https://api.example.com/v1/builds/latest (host api.example.com); only the address itself reaches that host.",
    ]);
    expect(ask(weekly, "Is anything deleted?")!.lines).toEqual([
      "Nothing is deleted: none of the program's calls deletes anything.",
      "But writing a file replaces what it held: at line 18 it writes a file once (creating it, or replacing what it held): /home/user/Sandbox/reports/weekly.md.",
    ]);
    expect(ask(digest, "Does it run more than once?")!.lines.slice(0, 2)).toEqual([
      "An approval lets the program run once: after its receipt is used, no other is issued for this request.",
      "At line 23 it sends an email 3 times.",
    ]);
    expect(ask(weekly, "What does the program read?")!.lines).toEqual([
      "At line 12 it reads a file once: /home/user/Sandbox/notes/week.md.",
    ]);
  });
});

describe("a draft the program sends: from the preview shown", () => {
  const index = sendDraft.facts.effects.findIndex((e) => e.op === "email.send_draft");
  const of = { effect: index, op: "email.send_draft", site: sendDraft.facts.effects[index]!.site, args: { id: "d-1" } };
  const shown: PreviewShown[] = [
    {
      ...of,
      fields: [
        { label: "To", value: "bob@example.com", multiline: false },
        { label: "Subject", value: "Board minutes", multiline: false },
        { label: "Body", value: "Hi Bob,\nThe minutes.", multiline: true },
      ],
    },
  ];
  const failed: PreviewShown[] = [{ ...of, unavailable: "Preview unavailable: the provider answered 404" }];

  it("who gets the draft: the preview's To, and what is checked at the send", () => {
    const lines = ask(sendDraft, "Who gets the draft?", shown)!.lines;
    expect(lines[0]).toBe(
      "At line 9 it sends a draft email once, to the recipients of the draft it sends: the draft d-1 shown has To bob@example.com; when it is sent, the draft is read again and its recipients are checked against the guarantees and what you approved, and a send outside them is refused; a draft is sent to its To addresses only.",
    );
    expect(lines[1]).toMatch(/^Guarantee recipientsOnly\(\["bob@example\.com"\]\): enforced at run time/);
  });

  it("what the body and subject say: the preview's, quoted", () => {
    expect(ask(sendDraft, "What does the body say?", shown)!.lines).toEqual([
      'At line 9 it sends a draft email once; its body is the draft\'s: the draft d-1 shown has the body "Hi Bob, ↵ The minutes."; when it is sent, the draft is read again and exactly what was checked is sent.',
    ]);
    expect(ask(sendDraft, "What's the subject?", shown)!.lines[0]).toContain(
      'the draft d-1 shown has the subject "Board minutes"',
    );
  });

  it("a draft the program makes itself, which no preview shows before the run: what its own call writes", () => {
    const runtime: PreviewShown[] = [
      {
        effect: 1,
        op: "email.send_draft",
        site: draft.facts.effects[1]!.site,
        args: {},
        unavailable: "Preview unavailable: the program's value for draft_id is only known when it runs",
      },
    ];
    expect(ask(draft, "Who will be emailed?", runtime)!.lines[0]).toContain(
      "to the recipients of the draft it sends: the draft the program's own email.draft_email call at line 10 makes, with its recipients bob@example.com;",
    );
    expect(ask(draft, "What is the subject?", runtime)!.lines[1]).toContain(
      'the draft the program\'s own email.draft_email call at line 10 makes, with its subject "Meeting notes"',
    );
  });

  it("a preview that could not be had: said so, and the body is not known", () => {
    expect(ask(sendDraft, "What does the body say?", failed)!.lines[0]).toContain(
      "the preview could not be had: the provider answered 404, so its body is not known",
    );
    expect(ask(sendDraft, "Who gets it?", failed)!.lines[0]).toContain(
      "the preview could not be had: the provider answered 404, so its recipients are not known",
    );
    const none = answerQuestion(sendDraft.facts, "What does the body say?", manifests, undefined, {
      previews: { problem: "the request is no longer waiting for a decision" },
    })!;
    expect(none.lines[0]).toContain(
      "the preview could not be had: the request is no longer waiting for a decision, so its body is not known",
    );
  });

  it("what happens if I approve: the headline from the preview, and the binding of the draft", () => {
    const lines = ask(sendDraft, "What happens if I approve?", shown)!.lines;
    expect(lines[0]).toBe(
      "If you approve, the program runs once and sends 1 email to bob@example.com (as the preview shows).",
    );
    expect(lines).toContain(
      "A draft it sends is bound as the page showed it when you approve: if its recipients, subject or body differ at the send, the send is refused.",
    );
    expect(ask(sendDraft, "What happens if I approve?", failed)!.lines).toContain(
      "To weigh: Preview unavailable: the provider answered 404 — you cannot see who gets this mail or what it says.",
    );
  });

  it("only questions about what a preview shows need one", () => {
    for (const text of [
      "Who gets the draft?",
      "What does the body say?",
      "What is the subject?",
      "What happens if I approve?",
      "Is anything sent?",
    ])
      expect(questionNeedsPreviews(text), text).toBe(true);
    for (const text of [
      "Which files?",
      "Which hosts?",
      "How many emails?",
      "What happens if I reject?",
      "What is untrusted?",
      "Remove Bob",
    ])
      expect(questionNeedsPreviews(text), text).toBe(false);
  });
});
