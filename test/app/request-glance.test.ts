// The first thing a person reads of a request: one sentence of what will happen, and the risks
// ranked, over facts the real analyzer and the shipped policy produce.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { decidedBy, requestGlance } from "../../src/app/request-glance.js";
import { requestPage } from "../../src/app/request-page.js";
import { loadPolicy } from "../../src/config/index.js";
import type { PreviewShown, StoredRequest } from "../../src/model/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { shippedManifests } from "../policy/helpers.js";
import { forwardDraft, IF_URGENT } from "../support/forward-draft.js";
import { storedRequest } from "../support/stored-request.js";

const manifests = shippedManifests();
const policy = loadPolicy(join(packageRoot, "policies"), { manifests, home: "/home/user" });
const analyzer = createAnalyzer(manifests);
afterAll(() => analyzer.dispose());

function stored(source: string, entry = "program.ts"): StoredRequest {
  return storedRequest({ analyzer, policy, manifests }, source, entry);
}
const example = (name: string) => stored(readFileSync(join(packageRoot, "examples", name), "utf8"), name);
const EXAMPLES = readdirSync(join(packageRoot, "examples")).filter((f) => f.endsWith(".ts"));

const SEND_DRAFT_D1 = `import { program } from "countersign";
import { sendDraft } from "trusted/email";
export default program({
  rationale: "",
  guarantees: [],
  async main() {
    await sendDraft({ draft_id: "d-1" });
  },
});
`;

/** The preview of draft-and-send's send: its draft, as a provider showed it. */
function draftPreview(request: StoredRequest, to: string): PreviewShown {
  const effect = request.facts.effects.findIndex((e) => e.op === "email.send_draft");
  const send = request.facts.effects[effect]!;
  return {
    effect,
    op: "email.send_draft",
    site: send.site,
    args: { draft_id: "d-1" },
    fields: [
      { label: "To", value: to, multiline: false },
      { label: "Subject", value: "Meeting notes", multiline: false },
      { label: "Body", value: "Hi Bob,\n", multiline: true },
    ],
  };
}

describe("the headline", () => {
  it("says in one sentence whom mail goes to and which files are written, with verbs and counts", () => {
    expect(requestGlance(example("notify-team.ts"), { manifests }).headline).toBe(
      "Sends 1 email to alice@example.com and bob@example.com.",
    );
    expect(requestGlance(example("team-digest.ts"), { manifests }).headline).toBe(
      "Sends 3 emails to alice@example.com, bob@example.com and carol@example.com and writes 1 file: /…/logs/digest.log.",
    );
    expect(requestGlance(example("refuted.ts"), { manifests }).headline).toBe(
      "Writes 2 files: /…/reports/today.md and /…/notes/today.md.",
    );
    expect(requestGlance(example("write-outside-sandbox.ts"), { manifests }).headline).toBe(
      "Writes 1 file: /home/user/.bashrc.",
    );
  });

  it("says a value read from third-party content is that, and where it was read", () => {
    const headline = requestGlance(stored(forwardDraft("r-1", IF_URGENT)), { manifests }).headline;
    expect(headline).toMatch(
      /^Sends between 1 and 2 emails to me@example\.com and an address read from the draft r-1 and reads 1 draft: r-1\.$/,
    );
  });

  it("names the recipients of a draft the program made itself, and those the preview shows when there is one", () => {
    const request = example("draft-and-send.ts");
    expect(requestGlance(request, { manifests }).headline).toMatch(
      /^Sends 1 email to bob@example\.com \(the draft it creates\)/,
    );
    expect(
      requestGlance(request, { manifests, previews: [draftPreview(request, "bob@example.com")] }).headline,
    ).toMatch(/^Sends 1 email to bob@example\.com \(as the preview shows\)/);
  });

  it("cuts a long value short and lists at most three, saying how many more", () => {
    const long = `a${"x".repeat(300)}@example.com`;
    const to = ["a@example.com", "b@example.com", "c@example.com", "d@example.com", long];
    const source = `import { program } from "countersign";
import { sendEmail } from "trusted/email";
export default program({
  rationale: "",
  guarantees: [],
  async main() {
    await sendEmail({ to: ${JSON.stringify(to)}, subject: "s", body: "b" });
  },
});
`;
    const headline = requestGlance(stored(source), { manifests }).headline;
    expect(headline).toBe("Sends 1 email to a@example.com, b@example.com, c@example.com and 2 more.");
  });
});

describe("the risks, most serious first", () => {
  it("a preview that could not be had comes first, and says what the person cannot see", () => {
    const request = stored(SEND_DRAFT_D1);
    const send = request.facts.effects.findIndex((e) => e.op === "email.send_draft");
    const failed: PreviewShown = {
      effect: send,
      op: "email.send_draft",
      site: request.facts.effects[send]!.site,
      args: { draft_id: "d-1" },
      unavailable: "Preview unavailable: the provider answered 404",
    };
    const { risks } = requestGlance(request, { manifests, previews: [failed] });
    expect(risks[0]).toEqual({
      kind: "preview_unavailable",
      level: "danger",
      label: "preview unavailable",
      text: "Preview unavailable: the provider answered 404 — you cannot see who gets this mail or what it says.",
    });
    expect(risks.map((r) => r.kind)).toEqual(["preview_unavailable", "mail_to_others"]);
  });

  it("in a list row (no showing): a preview no showing can fetch is a danger, unless the program sends what it made itself", () => {
    const unknownDraft = stored(SEND_DRAFT_D1.replace('draft_id: "d-1"', "draft_id: String(Date.now())"));
    expect(requestGlance(unknownDraft, { manifests }).risks[0]).toMatchObject({
      kind: "preview_unavailable",
      level: "danger",
      label: "preview unavailable",
    });
    expect(requestGlance(stored(SEND_DRAFT_D1), { manifests }).risks.map((r) => r.kind)).toEqual(["mail_to_others"]); // a constant id: a showing fetches it
    const own = requestGlance(example("draft-and-send.ts"), { manifests }).risks;
    expect(own[0]).toMatchObject({ kind: "preview_unavailable", level: "warning", label: "no preview before it runs" });
    expect(own[0]!.text).toContain("the program's own earlier call makes");
  });

  it("flags a draft addressed to someone a guarantee excludes: the run will be refused at the send", () => {
    const request = example("draft-and-send.ts");
    const { risks } = requestGlance(request, {
      manifests,
      previews: [draftPreview(request, "Bob <bob@example.com>, Eve <eve@evil.example>")],
    });
    expect(risks[0]).toMatchObject({ kind: "refused_at_send", level: "danger" });
    expect(risks[0]!.text).toContain("eve@evil.example");
    expect(risks[0]!.text).toContain('recipientsOnly(["bob@example.com"])');
    expect(risks[0]!.text).toContain("this run will be refused at the send");
    // The draft as the program wrote it contradicts nothing.
    expect(
      requestGlance(request, { manifests, previews: [draftPreview(request, "bob@example.com")] }).risks.map(
        (r) => r.kind,
      ),
    ).toEqual(["mail_to_others"]);
  });

  it("a send its guarantee and a policy guard both refuse is one risk, not two", () => {
    const source = SEND_DRAFT_D1.replace(
      'import { sendDraft } from "trusted/email";',
      'import { sendDraft } from "trusted/email";\nimport { recipientsOnly } from "trusted/email/contracts";',
    ).replace("guarantees: [],", 'guarantees: [recipientsOnly(["bob@example.com"])],');
    const request = stored(source);
    const preview: PreviewShown = { ...draftPreview(request, "mallory@evil.example"), args: { draft_id: "d-1" } };
    const refused = requestGlance(request, { manifests, previews: [preview] }).risks.filter(
      (r) => r.kind === "refused_at_send",
    );
    expect(refused).toHaveLength(1);
    expect(refused[0]!.text).toMatch(
      /^The preview of email\.send_draft at line \d+ shows To mallory@evil\.example, which the guarantee recipientsOnly\(\["bob@example\.com"\]\)( and .*)? excludes: this run will be refused at the send\.$/,
    );
  });

  it("third-party values are a danger; the id of a draft the program made is not third-party", () => {
    expect(requestGlance(stored(forwardDraft("r-1", IF_URGENT)), { manifests }).risks[0]).toMatchObject({
      kind: "untrusted_values",
      level: "danger",
      text: "Third-party content chooses values it passes: the draft r-1 chooses the to and body of email.send_email.",
    });
    expect(requestGlance(example("draft-and-send.ts"), { manifests }).risks.map((r) => r.kind)).not.toContain(
      "untrusted_values",
    );
  });

  it("files outside the file connection's roots, only when the roots are known", () => {
    const request = example("write-outside-sandbox.ts");
    expect(requestGlance(request, { manifests, fileRoots: ["/home/user/Sandbox"] }).risks).toEqual([
      expect.objectContaining({ kind: "files_outside", level: "danger", label: "files outside" }),
    ]);
    expect(requestGlance(example("refuted.ts"), { manifests, fileRoots: ["/home/user/Sandbox"] }).risks).toEqual([]);
    expect(requestGlance(request, { manifests }).risks).toEqual([]);
  });
});

describe("the page around the glance", () => {
  it("labels a draft id from the program's own draftEmail as its own earlier call, not untrusted", () => {
    const page = requestPage({ request: example("draft-and-send.ts"), manifests });
    const id = page.calls.find((c) => c.op === "email.send_draft")!.args.find((a) => a.name === "draft_id")!;
    expect(id.sources).toMatchObject({ untrusted: false, own: true });
    expect(id.sources!.text).toContain("what its own email.draft_email call made");
    expect(id.value).not.toContain("untrusted");
    expect(JSON.stringify(page.facts)).not.toContain("untrusted");
  });

  it("says who decided: a person, the policy, or a rule a person remembered", () => {
    const request = example("notify-team.ts");
    expect(
      decidedBy({
        ...request,
        decision: { kind: "approved_once", approver: "alice", reason: null, feedback: null, at: 0 },
      }),
    ).toBe("person");
    const auto = {
      ...request,
      decision: { kind: "auto_approved" as const, approver: null, reason: null, feedback: null, at: 0 },
    };
    expect(
      decidedBy({
        ...auto,
        policy: {
          ...request.policy,
          kind: "auto_approved",
          effects: request.policy.effects.map((e) => ({ ...e, verdict: "allow" as const, rule: "email.allow-team" })),
        },
      }),
    ).toBe("policy");
    const remembered = {
      ...auto,
      policy: {
        ...request.policy,
        kind: "auto_approved" as const,
        effects: request.policy.effects.map((e) => ({
          ...e,
          verdict: "allow" as const,
          rule: "remembered.email.send_email.0123456789ab",
        })),
      },
    };
    expect(decidedBy(remembered)).toBe("remembered_rule");
    expect(requestPage({ request: { ...remembered, status: "approved" }, manifests }).decision).toMatchObject({
      by: "remembered_rule",
      rules: ["remembered.email.send_email.0123456789ab"],
    });
  });

  it.each(EXAMPLES)(
    "%s: no literal backticks and no '1 calls' in what countersign says (the program's own text aside)",
    (name) => {
      const request = example(name);
      const { source: _source, rationale: _rationale, facts, ...said } = requestPage({ request, manifests });
      const written = new Set(request.facts.guarantees.map((g) => g.text)); // a guarantee as the program wrote it
      const text = JSON.stringify({ ...said, facts: facts.map((f) => (written.has(f.text) ? { ...f, text: "" } : f)) });
      expect(text).not.toContain("`");
      expect(text).not.toMatch(/\b1 calls\b/);
    },
  );
});
