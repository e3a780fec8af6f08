// The approval UI in a real headless Chromium (the system's, driven by playwright-core) against a
// real authority on 127.0.0.1: log in, see requests arrive live, decide each way, ask a question
// the facts answer, remember and forget a rule; what the page shows at each step, and what the
// API says afterwards. Screenshots of the inbox and a request page go to test-artifacts/.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeLoginLink } from "../../../src/app/index.js";
import { packageRoot } from "../../../src/model/paths.js";
import { forwardDraft, FROM_THE_DRAFT, IF_URGENT } from "../../support/forward-draft.js";
import { example, startTestAuthority, type ApproverSession, type TestAuthority } from "../harness.js";

/** What the predicates below read in the page (the tests have no DOM types). */
type InPage = { document: { body: { dataset: Record<string, string | undefined> } } };

const ARTIFACTS = join(packageRoot, "test-artifacts");
const LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

let a: TestAuthority;
let alice: ApproverSession; // the same approver over the API, to check what the page did
let browser: Browser;
let page: Page;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  a = await startTestAuthority("sqlite");
  alice = await a.login("alice");
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: LAUNCH_ARGS });
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.setDefaultTimeout(20_000);
});
afterAll(async () => {
  await browser?.close();
  await a?.close();
});

const submit = async (name: string, extra: Record<string, unknown> = {}): Promise<string> => {
  const answer = await a.call("POST", "/v1/requests", { body: { program: example(name), source_name: name, ...extra } });
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

describe("the approval UI in Chromium", { timeout: 120_000 }, () => {
  it("a page without a session says how to log in; the login link opens the inbox", async () => {
    const first = await page.goto(a.url + "/");
    expect(first?.status()).toBe(401);
    expect(await page.textContent("main")).toContain("countersign ui");
    const answer = await page.goto(`${a.url}/login?link=${makeLoginLink({ dataDir: a.dataDir, now: () => new Date() }, "alice")}`);
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
    expect(await page.$$eval("#pending li", (rows) => rows.map((r) => r.getAttribute("data-id")))).toEqual([newer, older]);
    expect(await page.title()).toBe("(2) Inbox · countersign");
    const row = await page.textContent(`#pending li[data-id="${older}"]`);
    expect(row).toContain("ask");
    expect(row).toContain("notify-team.ts");
    expect(row).toMatch(/s ago/);
    expect(row).toMatch(/1[45] min left/);
    expect(await stayed()).toBe(true); // no reload
    await page.screenshot({ path: join(ARTIFACTS, "inbox.png"), fullPage: true });
  });

  it("a request page shows the verdict, facts, calls, previews, the agent's words and the collapsed source, in that order", async () => {
    const id = await submit("notify-team.ts", { rationale: "The team asked for it." });
    await open(`/requests/${id}`);
    expect(await page.$$eval("main h2", (hs) => hs.map((h) => h.id))).toEqual(["h-verdict", "h-facts", "h-calls", "h-previews", "h-agent", "h-source", "h-actions"]);
    expect(await page.textContent("#h-verdict")).toContain("ask");
    expect(await page.textContent("section.verdict")).toContain("email.send_email");
    const facts = await page.$$eval("ul.facts li", (lis) => lis.map((li) => li.textContent!.replace(/\s+/g, " ").trim()));
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
    await page.screenshot({ path: join(ARTIFACTS, "request.png"), fullPage: true });
  });

  it("shows beside each value where it comes from: a forwarded draft's recipients come from the draft, untrusted (issue 15)", async () => {
    const submitted = await a.call("POST", "/v1/requests", { body: { program: forwardDraft("r-1", IF_URGENT), source_name: "forward.ts" } });
    expect(submitted.status).toBe(202);
    await open(`/requests/${submitted.body.id}`);
    const calls = await page.$$eval("#h-calls ~ ul.calls > li", (lis) => lis.map((li) => (li as unknown as { innerText: string }).innerText.replace(/\s+/g, " ").trim()));
    const forward = calls.find((c) => c.startsWith("email.send_email line 10"))!;
    expect(forward).toContain(`to is unknown (from the result of email.get_draft — untrusted) comes from ${FROM_THE_DRAFT}`);
    expect(forward).toContain('subject = "Fwd" body is'); // the program's own subject: no source shown
    expect(forward).toContain(`steered by data: whether it runs, how often and with which values may depend on ${FROM_THE_DRAFT}`);
    const urgent = calls.find((c) => c.startsWith("email.send_email line 11"))!;
    expect(urgent).not.toContain("comes from");
    expect(urgent).toContain(`steered by data: whether it runs, how often and with which values may depend on ${FROM_THE_DRAFT}`);
    // Visible, and marked as untrusted: the sources of the recipients, the body and two calls' control.
    const untrusted = page.locator("#h-calls ~ ul.calls .source.untrusted");
    expect(await untrusted.count()).toBe(4);
    for (const marked of await untrusted.all()) expect(await marked.isVisible()).toBe(true);
    expect(await untrusted.first().evaluate((e) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(e).color)).toBe("rgb(207, 34, 46)"); // --bad
    await page.screenshot({ path: join(ARTIFACTS, "request-provenance.png"), fullPage: true });
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
    expect(await apiView(id)).toMatchObject({ status: "approved", decision: { kind: "approved_once", approver: "alice" } });
    expect((await a.call("GET", `/v1/requests/${id}/decision`)).body.receipt).toEqual(expect.any(String));
  });

  it("reject needs a reason; with one, the agent gets it", async () => {
    const id = await submit("notify-team.ts");
    await open(`/requests/${id}`);
    await page.click("#reject"); // empty: the browser refuses to send it
    expect(await page.$eval("#reject-text", (t) => (t as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing)).toBe(true);
    expect((await apiView(id)).status).toBe("pending");
    await page.keyboard.press("Escape");
    await page.evaluate("document.activeElement?.blur()");
    await page.keyboard.press("r");
    expect(await focused()).toBe("reject-text");
    await page.keyboard.type("Not this week.");
    await Promise.all([page.waitForURL(`${a.url}/requests/${id}`), page.click("#reject")]);
    expect(await page.textContent("#status")).toContain("Reason: Not this week.");
    expect(await apiView(id)).toMatchObject({ status: "rejected", decision: { kind: "rejected", approver: "alice", reason: "Not this week." } });
    expect((await a.call("GET", `/v1/requests/${id}`)).body.decision).toMatchObject({ kind: "rejected", reason: "Not this week." });
  });

  it("a question the facts answer is answered on the page and the request keeps waiting; other text goes to the agent", async () => {
    const id = await submit("notify-team.ts");
    await open(`/requests/${id}`);
    await page.keyboard.press("m");
    expect(await focused()).toBe("ask-text");
    await page.keyboard.type("Who will be emailed?");
    await Promise.all([page.waitForURL(/\?q=/), page.click("#ask")]);
    const answer = await page.textContent("#answer");
    expect(answer).toContain("You asked: Who will be emailed?");
    expect(answer).toContain("Answered from the analysis; the agent was not asked.");
    expect(answer).toContain("At line 12 it sends an email once, to alice@example.com and bob@example.com.");
    expect((await apiView(id)).status).toBe("pending");
    await page.fill("#ask-text", "Send it to Alice only, please.");
    await Promise.all([page.waitForURL(`${a.url}/requests/${id}`), page.click("#ask")]);
    expect(await page.textContent("#status")).toContain("Sent to the agent as a request for changes (request_more): Send it to Alice only, please.");
    expect(await apiView(id)).toMatchObject({ status: "request_more", decision: { kind: "request_more", feedback: "Send it to Alice only, please." } });
  });

  it("approve and remember shows the rule and what else it lets through, asks scope and lifetime; the rule is listed and can be removed", async () => {
    const id = await submit("notify-team.ts");
    await open(`/requests/${id}`);
    await page.click("#remember summary");
    const remember = await page.textContent("#remember");
    expect(remember).toContain("Saves the rule remembered.email.send_email.");
    expect(remember).toContain("What else it lets through: Any later program, not only this one");
    expect(await page.$eval('input[name="scope"]:checked', (i) => (i as unknown as { value: string }).value)).toBe("token");
    expect(await page.$eval('input[name="lifetime"]:checked', (i) => (i as unknown as { value: string }).value)).toBe("hour");
    await page.check('input[name="lifetime"][value="day"]');
    await Promise.all([page.waitForURL(`${a.url}/requests/${id}`), page.click("#approve-remember")]);
    expect(await page.textContent("#status")).toMatch(/approved remember\s+by\s+alice/);
    expect(await apiView(id)).toMatchObject({ status: "approved", decision: { kind: "approved_remember" } });
    // The same program from the same token now passes without asking.
    expect((await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).body.status).toBe("approved");

    await page.goto(a.url + "/rules");
    const rule = await page.textContent("#rules li");
    expect(rule).toContain("remembered.email.send_email.");
    expect(rule).toContain(id);
    expect(rule).toContain("only token agent");
    expect(rule).toMatch(/until 23 h 59 min left|until 1 d left/);
    await Promise.all([page.waitForURL(`${a.url}/rules`), page.click("#rules li button")]);
    expect(await page.$$("#rules li")).toHaveLength(0);
    expect((await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).status).toBe(202);
  });

  it("a decision made elsewhere appears live on an open page, and its actions go away", async () => {
    const id = await submit("notify-team.ts");
    await open(`/requests/${id}`);
    await page.fill("#ask-text", "half-typed");
    const other = await submit("notify-team.ts"); // another request's event: this page keeps what was typed
    await page.waitForFunction(() => Number((globalThis as unknown as InPage).document.body.dataset.updates ?? 0) >= 1);
    expect(await page.inputValue("#ask-text")).toBe("half-typed");
    expect((await a.call("POST", `/v1/requests/${id}/decision`, { session: alice, body: { decision: "approved_once" } })).status).toBe(200);
    await page.waitForSelector('#status[data-live="approved"]');
    expect(await page.$$("#actions form")).toHaveLength(0);
    expect(await stayed()).toBe(true);
    await a.call("POST", `/v1/requests/${other}/decision`, { session: alice, body: { decision: "rejected", reason: "tidy up" } });
  });

  it("the history lists resolved requests with their decision, who decided and when, auto-decided ones included", async () => {
    const auto = (await a.call("POST", "/v1/requests", { body: { program: example("read-notes.ts") } })).body.id as string;
    const denied = (await a.call("POST", "/v1/requests", { body: { program: example("write-outside-sandbox.ts") } })).body.id as string;
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
    const submitted = await a.call("POST", "/v1/requests", { body: { program, source_name: "<i>x</i>.ts", rationale: hostile } });
    expect(submitted.status).toBe(202);
    const id = submitted.body.id as string;
    for (const path of ["/", `/requests/${id}`, `/requests/${id}?q=${encodeURIComponent(hostile)}`]) {
      await page.goto(a.url + path);
      if ((await page.$("#source summary")) !== null) await page.click("#source summary"); // the source too, where there is one
      expect(await page.evaluate("window.pwned"), path).toBeUndefined();
      expect(await page.$$("main img, main script, #evil, main a[href^='javascript:']"), path).toHaveLength(0);
      const text = await page.evaluate<string>("document.body.innerText");
      expect(text, path).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/);
    }
    // On the request page, the agent's words are there, as text.
    expect(await page.textContent("#rationale")).toContain("<script>window.pwned = 1</script>");
    expect(await page.textContent("#note")).toContain('<a href="javascript:window.pwned = 3" id="evil">click me</a>');
    expect(await page.textContent("#rationale")).toContain("⟨U+202E⟩gnp.exe⟨U+202C⟩");
    expect(await page.textContent("#rationale")).toContain("⟨U+001B⟩[2J⟨U+001B⟩]8;;https://evil.example/⟨U+0007⟩link");
    expect(await page.textContent("#L1")).toContain("<script>window.pwned = 1</script>");
    expect(await page.textContent("ul.calls dl")).toContain('"<b>hi</b>"');
    expect(await page.textContent("h1 + p.meta")).toContain("<i>x</i>.ts");
  });

  it("reads at 360 px wide without scrolling sideways", async () => {
    const id = await submit("notify-team.ts");
    const forwarded = await a.call("POST", "/v1/requests", { body: { program: forwardDraft("r-1", IF_URGENT), source_name: "forward.ts" } }); // long source descriptions
    await page.setViewportSize({ width: 360, height: 800 });
    for (const path of ["/", `/requests/${id}`, `/requests/${forwarded.body.id}`, "/rules"]) {
      await page.goto(a.url + path);
      const wide = await page.$$eval("body *", (all) => all.filter((e) => e.getBoundingClientRect().right > 360).map((e) => `${e.tagName}#${e.id}.${e.className}`));
      expect(wide, path).toEqual([]);
      expect(await page.evaluate<number>("document.documentElement.scrollWidth"), path).toBeLessThanOrEqual(360);
    }
    await page.screenshot({ path: join(ARTIFACTS, "request-360.png"), fullPage: true });
    await page.setViewportSize({ width: 1100, height: 900 });
  });
});
