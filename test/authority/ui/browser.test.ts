// The approval UI in a real headless Chromium (the system's, driven by playwright-core) against a
// real authority on 127.0.0.1 and a Gmail-shaped provider for previews: log in, see requests arrive
// live, decide each way, ask a question the facts answer or confirm a request for changes,
// remember and forget a rule; what the first screen holds at 1280x800 and 390x844, how danger is
// ranked, which events refresh a page, the error pages a browser meets, axe-core's findings, and
// what the API says afterwards. Screenshots of each state go to test-artifacts/.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../../examples/gmail-server/gmail-server.js";
import { makeLoginLink } from "../../../src/app/index.js";
import { packageRoot } from "../../../src/model/paths.js";
import { forwardDraft, FROM_THE_DRAFT, IF_URGENT } from "../../support/forward-draft.js";
import { example, startTestAuthority, type ApproverSession, type TestAuthority } from "../harness.js";

/** What the predicates below read in the page (the tests have no DOM types). */
type InPage = { document: { body: { dataset: Record<string, string | undefined> } } };

const ARTIFACTS = join(packageRoot, "test-artifacts");
const DESKTOP = { width: 1280, height: 800 };
const LAUNCH_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

let a: TestAuthority;
let alice: ApproverSession; // the same approver over the API, to check what the page did
let browser: Browser;
let page: Page;
let gmail: GmailServer; // the user's mail provider, for previews
const PROVIDER_TOKEN = "provider-secret-token";
const PHONE = { width: 390, height: 844 };

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  a = await startTestAuthority("sqlite", { previewTimeoutMs: 3_000 });
  alice = await a.login("alice");
  gmail = await startGmailServer({ token: PROVIDER_TOKEN });
  const tokenFile = join(a.dataDir, "provider.token");
  writeFileSync(tokenFile, `${PROVIDER_TOKEN}\n`);
  writeFileSync(
    join(a.dataDir, "connections.toml"),
    `[email]\nbase_url = "${gmail.url}"\ntoken_file = "${tokenFile}"\n`,
  );
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: LAUNCH_ARGS });
  page = await (await browser.newContext({ viewport: DESKTOP })).newPage(); // a context of its own: axe opens pages in it

  page.setDefaultTimeout(20_000);
});
afterAll(async () => {
  await browser?.close();
  await a?.close();
  await gmail?.close();
});

const submit = async (name: string, extra: Record<string, unknown> = {}): Promise<string> => {
  const answer = await a.call("POST", "/v1/requests", {
    body: { program: example(name), source_name: name, ...extra },
  });
  expect(answer.status).toBe(202);
  return answer.body.id as string;
};
const apiView = async (id: string) => (await a.call("GET", `/v1/requests/${id}`, { session: alice })).body;

/** Open a page and wait until its event stream is connected, so that what happens next shows live. */
async function open(path: string): Promise<void> {
  await page.goto(a.url + path);
  await page.waitForFunction(() => (globalThis as unknown as InPage).document.body.dataset.live === "on"); // a function: the page's CSP refuses code from strings
  await page.evaluate("window.stayed = true");
}
const stayed = () => page.evaluate<boolean>("window.stayed === true");
const focused = () => page.evaluate<string | undefined>("document.activeElement?.id");

/** axe-core on the page as it is now: no serious or critical violation (printed in full when there is one). */
async function axe(what: string, on: Page = page): Promise<void> {
  const { violations } = await new AxeBuilder({ page: on }).analyze();
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  if (bad.length > 0)
    console.log(
      `axe, ${what}:`,
      JSON.stringify(
        bad.map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          nodes: v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary}`),
        })),
        null,
        2,
      ),
    );
  expect(
    bad.map((v) => `${v.id}: ${v.help}`),
    what,
  ).toEqual([]);
}

/** The first screen as it is now, at the viewport's width: test-artifacts/<name>-<width>.png. */
const shoot = async (name: string, on: Page = page) =>
  on.screenshot({ path: join(ARTIFACTS, `${name}-${on.viewportSize()!.width}.png`) });

/** The first screen at 1280x800 and at 390x844 (a phone): test-artifacts/<name>-1280.png and <name>-390.png. */
async function shootBoth(name: string, on: Page = page): Promise<void> {
  for (const viewport of [DESKTOP, PHONE]) {
    await on.setViewportSize(viewport);
    await on.evaluate("window.scrollTo(0, 0)");
    await shoot(name, on);
  }
  await on.setViewportSize(DESKTOP);
}

/** Each element is on the first screen: shown, and its bottom within the viewport's height (the page scrolled to the top). */
async function onFirstScreen(selectors: readonly string[]): Promise<void> {
  await page.evaluate("window.scrollTo(0, 0)");
  const { width, height } = page.viewportSize()!;
  for (const selector of selectors) {
    const box = await page.locator(selector).first().boundingBox();
    expect(box, `${selector} at ${width}x${height}`).not.toBeNull();
    expect(box!.y + box!.height, `${selector} at ${width}x${height}`).toBeLessThanOrEqual(height);
  }
}

/** What must be on a pending request's first screen: what it does, its status and verdict, the risks, the buttons. */
const FIRST_SCREEN = [
  "h1#headline",
  "#status",
  "#risks",
  "#approve-once",
  "#reject-box summary",
  "#ask-box summary",
  "#remember summary",
];

/** A program that sends the provider's draft `id` (its recipients are the draft's), with `guarantees` as source text. */
const sendDraft = (id: string, guarantees = "[]", imports = "") => `import { program } from "countersign";
import { sendDraft } from "trusted/email";
${imports}
export default program({
  rationale: "Send the prepared draft.",
  guarantees: ${guarantees},
  async main() {
    await sendDraft({ draft_id: ${JSON.stringify(id)} });
  },
});
`;
const submitProgram = async (program: string, source_name: string): Promise<string> => {
  const answer = await a.call("POST", "/v1/requests", { body: { program, source_name } });
  expect(answer.status).toBe(202);
  return answer.body.id as string;
};
const previewsShown = async (id: string) =>
  String((await a.call("GET", "/v1/audit", { session: alice })).body)
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.request_id === id && entry.type === "preview_shown").length;
const providerReads = () => gmail.requests.filter((r) => r.startsWith("GET ")).length;

describe("the approval UI in Chromium", { timeout: 120_000 }, () => {
  it("a page without a session says how to log in; the login link opens the inbox", async () => {
    const first = await page.goto(a.url + "/");
    expect(first?.status()).toBe(401);
    expect(await page.textContent("main")).toContain("countersign ui");
    const answer = await page.goto(
      `${a.url}/login?link=${makeLoginLink({ dataDir: a.dataDir, now: () => new Date() }, "alice")}`,
    );
    expect(answer?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await page.textContent("h1")).toBe("Inbox");
    expect(await page.textContent(".who")).toBe("signed in as alice");
    const csp = answer!.headers()["content-security-policy"]!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
  });

  it("the inbox shows a new request live, newest first, with the pending count in the title", async () => {
    await open("/");
    expect(await page.title()).toBe("Inbox · countersign");
    const older = await submit("notify-team.ts");
    await page.waitForSelector(`#pending li[data-id="${older}"]`);
    const newer = await submit("draft-and-send.ts");
    await page.waitForSelector(`#pending li[data-id="${newer}"]`);
    expect(await page.$$eval("#pending li", (rows) => rows.map((r) => r.getAttribute("data-id")))).toEqual([
      newer,
      older,
    ]);
    expect(await page.title()).toBe("(2) Inbox · countersign");
    const row = await page.textContent(`#pending li[data-id="${older}"]`);
    expect(row).toContain("ask");
    expect(row).toContain("file name chosen by the agent: notify-team.ts");
    expect(row).toMatch(/s ago/);
    expect(row).toMatch(/1[45] min left/);
    expect(await stayed()).toBe(true); // no reload
  });

  it("a request page opens with the headline, the status, the risks and the actions; then the verdict, facts, calls, previews, the agent's words and the collapsed source", async () => {
    const id = await submit("notify-team.ts", { rationale: "The team asked for it." });
    await open(`/requests/${id}`);
    expect(await page.$$eval("main h1, main h2", (hs) => hs.map((h) => h.id))).toEqual([
      "headline",
      "h-risks",
      "h-actions",
      "h-verdict",
      "h-facts",
      "h-calls",
      "h-previews",
      "h-agent",
      "h-source",
    ]);
    expect(await page.textContent("h1")).toBe("Sends 1 email to alice@example.com and bob@example.com.");
    expect(await page.textContent("#status")).toMatch(/policy: ask\s+Waiting for your decision, 1[45] min left\./);
    expect(
      await page.$$eval("#risks li", (lis) => lis.map((li) => li.textContent!.replace(/\s+/g, " ").trim())),
    ).toEqual(["Warning mail to others: Sends email to other people: 1 email."]);
    expect(await page.textContent("#h-verdict")).toContain("ask");
    expect(await page.textContent("section.verdict")).toContain("email.send_email");
    const facts = await page.$$eval("ul.facts li", (lis) =>
      lis.map((li) => li.textContent!.replace(/\s+/g, " ").trim()),
    );
    expect(facts[0]).toMatch(/^proven recipientsOnly\(TEAM\)/);
    expect(facts[1]).toMatch(/^proven atMostEmails\(1\)/);
    expect(await page.textContent("ul.calls dl")).toContain('["alice@example.com","bob@example.com"]');
    expect(await page.textContent("#h-previews + p")).toBe("No preview for this request.");
    expect(await page.textContent("aside.agent")).toContain("Written by the agent, not checked by countersign");
    expect(await page.textContent("#rationale")).toBe("Tell the team the weekly report is ready.");
    expect(await page.textContent("#note")).toBe("The team asked for it.");
    expect(await page.$eval("#source", (d) => (d as unknown as { open: boolean }).open)).toBe(false);
    await page.click('section.verdict a[href="#L12"]');
    expect(await page.$eval("#source", (d) => (d as unknown as { open: boolean }).open)).toBe(true);
    expect(await page.textContent("#L12")).toContain("await sendEmail({");
    expect(await page.getAttribute("#L12", "class")).toBe("call");
    await page.evaluate("window.scrollTo(0, 0)");
    await page.screenshot({ path: join(ARTIFACTS, "request-full-1280.png"), fullPage: true });
  });

  it("shows beside each value where it comes from: a forwarded draft's recipients come from the draft, untrusted (issue 15)", async () => {
    const submitted = await a.call("POST", "/v1/requests", {
      body: { program: forwardDraft("r-1", IF_URGENT), source_name: "forward.ts" },
    });
    expect(submitted.status).toBe(202);
    await open(`/requests/${submitted.body.id}`);
    const calls = await page.$$eval("#h-calls ~ ul.calls > li", (lis) =>
      // biome-ignore lint/performance/useDomNodeTextContent: the text as the person sees it, laid out
      lis.map((li) => (li as unknown as { innerText: string }).innerText.replace(/\s+/g, " ").trim()),
    );
    const forward = calls.find((c) => c.startsWith("email.send_email line 10"))!;
    expect(forward).toContain(
      `to is unknown (from the result of email.get_draft, field $.body — untrusted) comes from ${FROM_THE_DRAFT}`,
    );
    expect(forward).toContain('subject = "Fwd" body is'); // the program's own subject: no source shown
    expect(forward).toContain(
      `steered by data: whether it runs, how often and with which values may depend on ${FROM_THE_DRAFT}`,
    );
    const urgent = calls.find((c) => c.startsWith("email.send_email line 11"))!;
    expect(urgent).not.toContain("comes from");
    expect(urgent).toContain(
      `steered by data: whether it runs, how often and with which values may depend on ${FROM_THE_DRAFT}`,
    );
    // Visible, and marked as untrusted: the sources of the recipients, the body and two calls' control.
    const untrusted = page.locator("#h-calls ~ ul.calls .source.untrusted");
    expect(await untrusted.count()).toBe(4);
    for (const marked of await untrusted.all()) expect(await marked.isVisible()).toBe(true);
    expect(
      await untrusted
        .first()
        .evaluate(
          (e) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(e).color,
        ),
    ).toBe("rgb(207, 34, 46)"); // --bad
    expect(await page.$$("#h-calls ~ ul.calls .source.own")).toHaveLength(0); // nothing here is the program's own earlier call
    await page.screenshot({ path: join(ARTIFACTS, "request-provenance-full-1280.png"), fullPage: true });
  });

  it("approve once with the a key: the page shows the decision and offers no other; the API agrees", async () => {
    const id = await submit("notify-team.ts");
    await open(`/requests/${id}`);
    await page.keyboard.press("a");
    expect(await focused()).toBe("approve-once");
    await Promise.all([page.waitForURL(`${a.url}/requests/${id}`), page.keyboard.press("Enter")]);
    await page.waitForSelector('#status[data-live="approved"]');
    expect(await page.textContent("#status")).toMatch(/approved once\s+by\s+alice/);
    expect(await page.$$("#actions form")).toHaveLength(0);
    expect(await apiView(id)).toMatchObject({
      status: "approved",
      decision: { kind: "approved_once", approver: "alice" },
    });
    expect((await a.call("GET", `/v1/requests/${id}/decision`)).body.receipt).toEqual(expect.any(String));
  });

  it("reject needs a reason; with one, the agent gets it", async () => {
    const id = await submit("notify-team.ts");
    await open(`/requests/${id}`);
    expect(await page.isVisible("#reject")).toBe(false); // in its panel, closed
    await page.click("#reject-box summary");
    await page.click("#reject"); // empty: the browser refuses to send it
    expect(
      await page.$eval(
        "#reject-text",
        (t) => (t as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing,
      ),
    ).toBe(true);
    expect((await apiView(id)).status).toBe("pending");
    await page.keyboard.press("Escape");
    await page.evaluate("document.activeElement?.blur()");
    await page.click("#reject-box summary"); // closed again: the key opens it
    expect(await page.isVisible("#reject-text")).toBe(false);
    await page.keyboard.press("r");
    expect(await focused()).toBe("reject-text");
    await page.keyboard.type("Not this week.");
    await Promise.all([page.waitForURL(`${a.url}/requests/${id}`), page.click("#reject")]);
    expect(await page.textContent("#status")).toContain("Reason: Not this week.");
    expect(await apiView(id)).toMatchObject({
      status: "rejected",
      decision: { kind: "rejected", approver: "alice", reason: "Not this week." },
    });
    expect((await a.call("GET", `/v1/requests/${id}`)).body.decision).toMatchObject({
      kind: "rejected",
      reason: "Not this week.",
    });
  });

  it("a question the facts answer is answered in place, keeping what was typed; other text goes to the agent only once confirmed", async () => {
    const id = await submit("notify-team.ts");
    await open(`/requests/${id}`);
    await page.keyboard.press("m");
    expect(await focused()).toBe("ask-text");
    await page.keyboard.type("Who will be emailed?");
    await page.click("#ask");
    await page.waitForSelector("#answer");
    const answer = await page.textContent("#answer");
    expect(answer).toContain("You asked: Who will be emailed?");
    expect(answer).toContain("Answered from the analysis; the agent was not asked.");
    expect(answer).toContain("At line 12 it sends an email once, to alice@example.com and bob@example.com.");
    expect(await page.inputValue("#ask-text")).toBe("Who will be emailed?");
    expect(await stayed()).toBe(true); // answered without leaving the page
    expect((await apiView(id)).status).toBe("pending");
    await page.fill("#ask-text", "Send it to Alice only, please.");
    await Promise.all([page.waitForURL(`${a.url}/requests/${id}/decide#actions`), page.click("#ask")]);
    // Not a question the facts answer: nothing is sent yet; the person sees what sending means and confirms.
    expect(await page.textContent("#confirm")).toContain(
      "Sent, it goes to the agent as a request for changes, and this request ends",
    );
    expect(await page.inputValue("#confirm-text")).toBe("Send it to Alice only, please.");
    const button = (await page.locator("#confirm-request-more").boundingBox())!; // brought into view, where the person was looking
    expect(button.y).toBeGreaterThanOrEqual(0);
    expect(button.y + button.height).toBeLessThanOrEqual(DESKTOP.height);
    expect((await apiView(id)).status).toBe("pending");
    await page.waitForFunction(() => (globalThis as unknown as InPage).document.body.dataset.live === "on");
    await axe("ask confirm step");
    await shootBoth("request-confirm");
    await Promise.all([page.waitForURL(`${a.url}/requests/${id}`), page.click("#confirm-request-more")]);
    expect(await page.textContent("#status")).toContain(
      "Sent to the agent as a request for changes (request_more): Send it to Alice only, please.",
    );
    expect(await apiView(id)).toMatchObject({
      status: "request_more",
      decision: { kind: "request_more", feedback: "Send it to Alice only, please." },
    });
  });

  it("approve and remember shows the rule and what else it lets through, asks scope and lifetime; the rule is listed and can be removed", async () => {
    const id = await submit("notify-team.ts");
    await open(`/requests/${id}`);
    await page.click("#remember summary");
    await axe("remember panel");
    await shootBoth("request-remember");
    const remember = await page.textContent("#remember");
    expect(remember).not.toMatch(/\b1 calls\b/);
    expect(remember).toContain("Saves the rule remembered.email.send_email.");
    expect(remember).toContain("What else it lets through: Any later program, not only this one");
    expect(await page.$eval('input[name="scope"]:checked', (i) => (i as unknown as { value: string }).value)).toBe(
      "token",
    );
    expect(await page.$eval('input[name="lifetime"]:checked', (i) => (i as unknown as { value: string }).value)).toBe(
      "hour",
    );
    await page.check('input[name="lifetime"][value="day"]');
    await Promise.all([page.waitForURL(`${a.url}/requests/${id}`), page.click("#approve-remember")]);
    expect(await page.textContent("#status")).toMatch(/approved remember\s+by\s+alice/);
    expect(await apiView(id)).toMatchObject({ status: "approved", decision: { kind: "approved_remember" } });
    // The same program from the same token now passes without asking, and every surface says a remembered rule decided it.
    const passed = (await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).body;
    expect(passed.status).toBe("approved");
    await page.goto(`${a.url}/requests/${passed.id}`);
    expect(await page.textContent("#status")).toMatch(
      /auto approved\s+by a remembered rule remembered\.email\.send_email\./,
    );
    expect(await page.textContent("#actions")).toMatch(/by a remembered rule remembered\.email\.send_email\./);
    await page.goto(`${a.url}/`);
    const row = await page.textContent(`#history li[data-id="${passed.id}"]`);
    expect(row).toMatch(/auto approved[\s\S]*by a remembered rule remembered\.email\.send_email\./);
    expect(row).not.toContain("by the policy");

    await page.goto(a.url + "/rules");
    await axe("rules page");
    await shootBoth("rules");
    const rule = await page.textContent("#rules li");
    expect(rule).not.toMatch(/`|\b1 calls\b/); // countersign's words: code as code, "1 call"
    expect(rule).toContain("at most 1 call of email.send_email");
    expect(rule).toContain("remembered.email.send_email.");
    expect(rule).toContain(id);
    expect(rule).toContain("only token agent");
    expect(rule).toMatch(/until 23 h 59 min left|until 1 d left/);
    await Promise.all([page.waitForURL(`${a.url}/rules`), page.click("#rules li button")]);
    expect(await page.$$("#rules li")).toHaveLength(0);
    expect((await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).status).toBe(202);
  });

  it("a decision made elsewhere replaces the actions live with who decided what, keeping what was typed; other requests' events leave the page alone", async () => {
    const id = await submit("notify-team.ts");
    await open(`/requests/${id}`);
    await page.click("#reject-box summary");
    await page.fill("#reject-text", "half-typed");
    const other = await submit("notify-team.ts"); // another request's event: this page does not even fetch itself again
    await page.waitForFunction(() => Number((globalThis as unknown as InPage).document.body.dataset.events ?? 0) >= 1);
    expect(await page.evaluate<string | undefined>("document.body.dataset.updates")).toBeUndefined();
    expect(await page.inputValue("#reject-text")).toBe("half-typed");
    expect(
      (await a.call("POST", `/v1/requests/${id}/decision`, { session: alice, body: { decision: "approved_once" } }))
        .status,
    ).toBe(200);
    await page.waitForSelector('#status[data-live="approved"]');
    await page.waitForSelector('#actions[data-live="approved"]');
    expect(await page.$$("#actions form")).toHaveLength(0);
    expect(await page.textContent("#actions")).toMatch(/approved once\s+by\s+alice/);
    expect(await page.textContent("#actions #unsent")).toBe("half-typed"); // where the person was looking, with what they typed
    expect(await page.textContent("#announce")).toMatch(/^This request was decided: approved once by alice/);
    expect(await stayed()).toBe(true);
    await shootBoth("request-decided-elsewhere");
    await a.call("POST", `/v1/requests/${other}/decision`, {
      session: alice,
      body: { decision: "rejected", reason: "tidy up" },
    });
  });

  it("the history lists resolved requests with their decision, who decided and when, auto-decided ones included", async () => {
    const auto = (await a.call("POST", "/v1/requests", { body: { program: example("read-notes.ts") } })).body
      .id as string;
    const denied = (await a.call("POST", "/v1/requests", { body: { program: example("write-outside-sandbox.ts") } }))
      .body.id as string;
    await open("/");
    const row = (id: string) => page.textContent(`#history li[data-id="${id}"]`);
    expect(await row(auto)).toMatch(/auto approved[\s\S]*by the policy[\s\S]*ago/);
    expect(await row(denied)).toMatch(/auto rejected[\s\S]*by the policy/);
    expect(await page.textContent("#history")).toMatch(/approved once[\s\S]*by alice/);
  });

  it("hostile agent text renders as inert, visible text: no script runs, no markup or link is made, controls and bidi overrides are shown", async () => {
    const hostile = [
      "</pre></aside><script>window.pwned = 1</script>",
      '<img src=x onerror="window.pwned = 2">',
      '<a href="javascript:window.pwned = 3" id="evil">click me</a>',
      "\u202Egnp.exe\u202C",
      "\u001b[2J\u001b]8;;https://evil.example/\u0007link\u001b]8;;\u0007",
    ].join("\n");
    const program = [
      `// ${hostile.replaceAll("\n", " ")}`,
      'import { program } from "countersign";',
      'import { sendEmail } from "trusted/email";',
      "export default program({",
      `  rationale: ${JSON.stringify(hostile)},`,
      "  guarantees: [],",
      "  async main() {",
      `    await sendEmail({ to: ["bob@example.com"], subject: "<b>hi</b>", body: ${JSON.stringify(hostile)} });`,
      "  },",
      "});",
      "",
    ].join("\n");
    const submitted = await a.call("POST", "/v1/requests", {
      body: { program, source_name: "<i>x</i>.ts", rationale: hostile },
    });
    expect(submitted.status).toBe(202);
    const id = submitted.body.id as string;
    for (const path of ["/", `/requests/${id}`, `/requests/${id}?q=${encodeURIComponent(hostile)}`]) {
      await page.goto(a.url + path);
      if ((await page.$("#source summary")) !== null) await page.click("#source summary"); // the source too, where there is one
      expect(await page.evaluate("window.pwned"), path).toBeUndefined();
      expect(await page.$$("main img, main script, #evil, main a[href^='javascript:']"), path).toHaveLength(0);
      const text = await page.evaluate<string>("document.body.innerText");
      expect(text, path).not.toMatch(
        /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/,
      );
    }
    // On the request page, the agent's words are there, as text.
    expect(await page.textContent("#rationale")).toContain("<script>window.pwned = 1</script>");
    expect(await page.textContent("#note")).toContain('<a href="javascript:window.pwned = 3" id="evil">click me</a>');
    expect(await page.textContent("#rationale")).toContain("⟨U+202E⟩gnp.exe⟨U+202C⟩");
    expect(await page.textContent("#rationale")).toContain("⟨U+001B⟩[2J⟨U+001B⟩]8;;https://evil.example/⟨U+0007⟩link");
    expect(await page.textContent("#L1")).toContain("<script>window.pwned = 1</script>");
    expect(await page.textContent("ul.calls dl")).toContain('"<b>hi</b>"');
    expect(await page.textContent("h1 + p.meta")).toContain("file name chosen by the agent: <i>x</i>.ts");
  });

  it("reads at 360 px wide without scrolling sideways", async () => {
    const id = await submit("notify-team.ts");
    const forwarded = await a.call("POST", "/v1/requests", {
      body: { program: forwardDraft("r-1", IF_URGENT), source_name: "forward.ts" },
    }); // long source descriptions
    await page.setViewportSize({ width: 360, height: 800 });
    for (const path of ["/", `/requests/${id}`, `/requests/${forwarded.body.id}`, "/rules"]) {
      await page.goto(a.url + path);
      const wide = await page.$$eval("body *", (all) =>
        all.filter((e) => e.getBoundingClientRect().right > 360).map((e) => `${e.tagName}#${e.id}.${e.className}`),
      );
      expect(wide, path).toEqual([]);
      expect(await page.evaluate<number>("document.documentElement.scrollWidth"), path).toBeLessThanOrEqual(360);
    }
    await page.screenshot({ path: join(ARTIFACTS, "request-provenance-full-360.png"), fullPage: true });
    await page.setViewportSize(DESKTOP);
  });
});

describe("what a person sees first, and what to weigh (issue 26)", { timeout: 180_000 }, () => {
  it("the headline, the status and verdict, the risks and the buttons are on the first screen at 1280x800 and 390x844", async () => {
    const plain = await submit("notify-team.ts");
    const preview = await submitProgram(
      sendDraft(
        gmail.addDraft({
          to: ["carol.preview@example.net"],
          subject: "Board minutes",
          body: "Hi Carol,\nthe minutes.\n",
        }),
      ),
      "send-draft.ts",
    );
    const failed = await submitProgram(sendDraft("r404nothere"), "send-draft.ts");
    const refused = await submitProgram(
      sendDraft(
        gmail.addDraft({ to: ["mallory@evil.example"], subject: "Notes", body: "x" }),
        '[recipientsOnly(["bob@example.com"])]',
        'import { recipientsOnly } from "trusted/email/contracts";',
      ),
      "send-draft.ts",
    );
    const shown: [string, string][] = [
      [plain, "request"],
      [preview, "request-preview"],
      [failed, "request-failed-preview"],
      [refused, "request-refused-at-send"],
    ];
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      for (const [id, name] of shown) {
        await open(`/requests/${id}`);
        await onFirstScreen(FIRST_SCREEN);
        const text = await page.evaluate<string>("document.querySelector('main').innerText");
        expect(
          text.split("\n").filter((l) => l.includes("`")),
          name,
        ).toEqual([]);
        expect(text, name).not.toMatch(/\b1 calls\b/);
        await shoot(name);
      }
    }
    await page.setViewportSize(DESKTOP);
    await open(`/requests/${preview}`);
    expect(await page.textContent("h1")).toBe("Sends 1 email to carol.preview@example.net (as the preview shows).");
    expect(await page.getAttribute("#approve-once", "class")).toBe("primary");
    await axe("request with a preview");
    await page.screenshot({ path: join(ARTIFACTS, "request-preview-full-1280.png"), fullPage: true });
    await open(`/requests/${refused}`);
    expect(await page.getAttribute("#risks li:first-child", "data-kind")).toBe("refused_at_send");
    expect(await page.textContent("#risks li:first-child")).toContain("this run will be refused at the send");
    expect(await page.getAttribute("#approve-once", "class")).toBe("secondary");
  });

  it("danger ranked: a failed preview is a danger in words and colour, Approve is not the bright default, and the Preview section warns too", async () => {
    const id = await submitProgram(sendDraft("r404nothere"), "send-draft.ts");
    await open(`/requests/${id}`);
    const risks = page.locator("#risks li");
    expect(await risks.first().getAttribute("class")).toBe("risk danger");
    expect(await risks.first().textContent()).toMatch(
      /^Danger preview unavailable: Preview unavailable: email\.get_draft: the mail API answered 404 — you cannot see who gets this mail/,
    );
    expect(await page.$$eval("#risks li", (lis) => lis.map((li) => li.getAttribute("data-kind")))).toEqual([
      "preview_unavailable",
      "mail_to_others",
    ]);
    expect(await page.textContent("#risks li.warning .level")).toBe("Warning");
    const style = (selector: string, property: string) =>
      page.$eval(
        selector,
        (e, p) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(e)[p]!,
        property,
      );
    expect(await style("#risks li.danger .level", "backgroundColor")).toBe("rgb(207, 34, 46)"); // --bad
    expect(await style("#risks li.danger", "borderLeftColor")).toBe("rgb(207, 34, 46)");
    expect(await page.getAttribute("#approve-once", "class")).toBe("secondary");
    expect(await style("#approve-once", "backgroundColor")).toBe("rgb(255, 255, 255)");
    expect(await page.getAttribute("#approve-once", "aria-describedby")).toBe("approve-why");
    expect(await page.textContent("#approve-why")).toContain("Approve is not the default here: preview unavailable");
    const failed = page.locator(".preview.failed");
    expect(await failed.textContent()).toMatch(
      /^Warning email\.send_draft line \d+: Preview unavailable: email\.get_draft: the mail API answered 404/,
    );
    expect(await style(".preview.failed", "borderLeftColor")).toBe("rgb(125, 83, 0)"); // --warn
    await axe("request with a failed preview");
    await page.screenshot({ path: join(ARTIFACTS, "request-failed-preview-full-1280.png"), fullPage: true });
  });

  it("a value the program's own earlier call made is labelled so, not as untrusted", async () => {
    const id = await submit("draft-and-send.ts");
    await open(`/requests/${id}`);
    const own = page.locator("#h-calls ~ ul.calls .source.own");
    expect(await own.count()).toBeGreaterThan(0);
    expect(await own.first().textContent()).toMatch(
      /^the program's own earlier call comes from what its own email\.draft_email call made/,
    );
    expect(await page.$$("#h-calls ~ ul.calls .source.untrusted")).toHaveLength(0);
    expect(
      await own
        .first()
        .evaluate(
          (e) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(e).color,
        ),
    ).not.toBe("rgb(207, 34, 46)");
  });

  it("inbox rows: the headline, a marker per risk (danger ones distinct), the agent's file name marked; a new arrival is announced", async () => {
    await open("/");
    const before = Number(await page.textContent("#pending-count"));
    const id = await submitProgram(sendDraft("r404nothere"), "<b>urgent</b>.ts");
    await page.waitForSelector(`#pending li[data-id="${id}"]`);
    await page.waitForFunction(
      () =>
        (
          globalThis as unknown as { document: { getElementById(id: string): { textContent: string } } }
        ).document.getElementById("announce").textContent !== "",
    );
    expect(await page.textContent("#announce")).toBe(`1 new request waiting, ${before + 1} in all`);
    expect(await page.getAttribute("#announce", "aria-live")).toBe("polite");
    const row = page.locator(`#pending li[data-id="${id}"]`);
    expect(await row.locator("a.open").textContent()).toMatch(/^Sends 1 email to the recipients of draft r\w+\.$/);
    expect(await row.locator(".marker").allTextContents()).toEqual(["warning: mail to others"]); // no preview is fetched for a list
    expect(await row.locator(".meta .agent-named").textContent()).toBe(
      "file name chosen by the agent: <b>urgent</b>.ts",
    );
    const forwarded = await submitProgram(forwardDraft("r-1"), "forward.ts");
    await page.waitForSelector(`#pending li[data-id="${forwarded}"]`);
    const markers = page.locator(`#pending li[data-id="${forwarded}"] .marker`);
    expect(await markers.allTextContents()).toEqual(["danger: untrusted values", "warning: mail to others"]);
    expect(await markers.first().getAttribute("class")).toBe("marker danger");
    expect(
      await markers
        .first()
        .evaluate(
          (e) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(e)
              .backgroundColor,
        ),
    ).toBe("rgb(207, 34, 46)");
    expect(
      await markers
        .nth(1)
        .evaluate(
          (e) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(e)
              .backgroundColor,
        ),
    ).toBe("rgb(255, 255, 255)");
    await axe("inbox");
    await shootBoth("inbox");
    await page.screenshot({ path: join(ARTIFACTS, "inbox-full-1280.png"), fullPage: true });
  });

  it("a request's page fetches its previews when shown, not for other requests' events; the inbox refreshes for every event", async () => {
    const id = await submitProgram(
      sendDraft(gmail.addDraft({ to: ["dan@example.net"], subject: "Plan", body: "The plan." })),
      "send-draft.ts",
    );
    await open(`/requests/${id}`);
    const reads = providerReads();
    const shown = await previewsShown(id);
    expect(shown).toBeGreaterThan(0);
    const others = [await submit("notify-team.ts"), await submit("notify-team.ts")];
    await a.call("POST", `/v1/requests/${others[0]}/decision`, {
      session: alice,
      body: { decision: "rejected", reason: "tidy up" },
    });
    await page.waitForFunction(() => Number((globalThis as unknown as InPage).document.body.dataset.events ?? 0) >= 3);
    expect(await page.evaluate<string | undefined>("document.body.dataset.updates")).toBeUndefined(); // not fetched again
    expect(providerReads()).toBe(reads);
    expect(await previewsShown(id)).toBe(shown);
    // Its own event refreshes it.
    await a.call("POST", `/v1/requests/${id}/decision`, {
      session: alice,
      body: { decision: "rejected", reason: "not now" },
    });
    await page.waitForSelector('#status[data-live="rejected"]');
    expect(await page.evaluate<string | undefined>("document.body.dataset.updates")).toBe("1");
    // The inbox refreshes for any event.
    await open("/");
    await a.call("POST", `/v1/requests/${others[1]}/decision`, {
      session: alice,
      body: { decision: "rejected", reason: "tidy up" },
    });
    await page.waitForFunction(() => Number((globalThis as unknown as InPage).document.body.dataset.updates ?? 0) >= 1);
    expect(await page.getAttribute(`#history li[data-id="${others[1]}"] .tag`, "class")).toBe("tag rejected");
  });
});

describe("states and errors are pages in the UI's style with the next step (issue 26)", { timeout: 180_000 }, () => {
  const htmlPage = async (to: Page, path: string, status: number) => {
    const answer = await to.goto(a.url + path);
    expect(answer?.status(), path).toBe(status);
    expect(answer?.headers()["content-type"], path).toMatch(/^text\/html/);
    expect(await to.$('link[rel="stylesheet"][href="/ui/app.css"]'), path).not.toBeNull();
    return answer!;
  };

  it("a used, expired or malformed login link, no link, an unknown page and an unknown request: each a page with the next step", async () => {
    const fresh = await browser.newContext({ viewport: DESKTOP });
    const other = await fresh.newPage();
    const link = makeLoginLink({ dataDir: a.dataDir, now: () => new Date() }, "alice");
    await htmlPage(other, `/login?link=${link}`, 200); // logged in: the inbox
    await htmlPage(other, `/login?link=${link}`, 403);
    expect(await other.textContent("h1")).toBe("This login link does not work");
    expect(await other.textContent("#error-message")).toContain("This login link was used already");
    expect(await other.textContent("#next")).toContain("you are still signed in as alice: go to the inbox");
    await axe("error page: a used login link", other);
    await shootBoth("error-login-used", other);
    await fresh.clearCookies();
    const old = makeLoginLink({ dataDir: a.dataDir, now: () => new Date(Date.now() - 61_000) }, "alice");
    await htmlPage(other, `/login?link=${old}`, 403);
    expect(await other.textContent("#error-message")).toContain("This login link has expired");
    expect(await other.textContent("#next")).toContain(
      "run countersign ui on the machine that holds the data directory",
    );
    await htmlPage(other, "/login?link=garbage", 403);
    expect(await other.textContent("#error-message")).toContain("malformed");
    await htmlPage(other, "/login", 403);
    expect(await other.textContent("h1")).toBe("This login link does not work");
    await htmlPage(other, "/", 401);
    expect(await other.textContent("h1")).toBe("Log in");
    expect(await other.textContent("main")).toContain("Next: run countersign ui");
    await htmlPage(other, "/nowhere", 404);
    expect(await other.textContent("h1")).toBe("Not found");
    expect(await other.textContent("#next")).toContain("go to the inbox");
    await page.goto(a.url + "/requests/req_nope");
    expect(await page.textContent("h1")).toBe("Not found");
    await shootBoth("error-not-found");
    // The JSON API keeps JSON, whoever asks.
    const api = await other.goto(a.url + "/v1/requests/req_nope");
    expect(api?.headers()["content-type"]).toMatch(/^application\/json/);
    await fresh.close();
  });

  it("a stale form after a second login is refused with a page that keeps what was typed; sent again, it works", async () => {
    const id = await submit("notify-team.ts");
    await open(`/requests/${id}`);
    await page.click("#reject-box summary");
    await page.fill("#reject-text", "Not with this subject.");
    const second = await page.context().newPage();
    await second.goto(`${a.url}/login?link=${makeLoginLink({ dataDir: a.dataDir, now: () => new Date() }, "alice")}`); // a new session, a new CSRF token
    await second.close();
    const [answer] = await Promise.all([page.waitForNavigation(), page.click("#reject")]);
    expect(answer?.status()).toBe(403);
    expect(await page.textContent("#error")).toContain(
      "loaded under an earlier sign-in (you signed in again since), so nothing was done",
    );
    expect(await page.inputValue("#reject-text")).toBe("Not with this subject.");
    expect(await page.isVisible("#reject-text")).toBe(true);
    expect((await apiView(id)).status).toBe("pending");
    await axe("a stale form, refused");
    await shootBoth("error-stale-form");
    await Promise.all([page.waitForURL(`${a.url}/requests/${id}`), page.click("#reject")]);
    expect(await apiView(id)).toMatchObject({ status: "rejected", decision: { reason: "Not with this subject." } });
  });

  it("without JavaScript: a question is answered with the text kept, other text is confirmed first; a decision made elsewhere meanwhile is shown with what was typed", async () => {
    const plain = await browser.newContext({ viewport: DESKTOP, javaScriptEnabled: false });
    const p = await plain.newPage();
    await p.goto(`${a.url}/login?link=${makeLoginLink({ dataDir: a.dataDir, now: () => new Date() }, "alice")}`);
    const id = await submit("notify-team.ts");
    await p.goto(`${a.url}/requests/${id}`);
    await p.click("#ask-box summary");
    await p.fill("#ask-text", "How many emails?");
    await Promise.all([p.waitForNavigation(), p.click("#ask")]);
    expect(await p.textContent("#answer")).toContain("Exactly 1 email.");
    expect(await p.inputValue("#ask-text")).toBe("How many emails?");
    await p.fill("#ask-text", "Please change the subject.");
    await Promise.all([p.waitForNavigation(), p.click("#ask")]);
    expect(await p.textContent("#confirm")).toContain("this request ends");
    expect(await p.inputValue("#confirm-text")).toBe("Please change the subject.");
    expect((await apiView(id)).status).toBe("pending");
    await Promise.all([p.waitForNavigation(), p.click("#confirm-request-more")]);
    expect(await apiView(id)).toMatchObject({
      status: "request_more",
      decision: { feedback: "Please change the subject." },
    });

    const raced = await submit("notify-team.ts");
    await p.goto(`${a.url}/requests/${raced}`);
    await p.click("#reject-box summary");
    await p.fill("#reject-text", "Too many recipients.");
    await a.call("POST", `/v1/requests/${raced}/decision`, { session: alice, body: { decision: "approved_once" } }); // decided elsewhere meanwhile
    const [answer] = await Promise.all([p.waitForNavigation(), p.click("#reject")]);
    expect(answer?.status()).toBe(409);
    expect(await p.textContent("#error")).toContain("already approved");
    expect(await p.textContent("#actions")).toMatch(/approved once\s+by\s+alice/);
    expect(await p.textContent("#unsent")).toBe("Too many recipients.");
    await shootBoth("request-decided-while-deciding", p);
    await plain.close();
  });
});
