// The approval pages and their form posts over plain HTTP: who may see them, what a form post
// must carry, and how a refused decision is answered.
import { describe, expect, it } from "vitest";
import { authorityForSuite, example, type ApproverSession, type TestAuthority } from "../harness.js";

describe("the approval pages over HTTP", () => {
  let a: TestAuthority;
  let alice: ApproverSession;
  authorityForSuite("sqlite", (started, session) => ((a = started), (alice = session)));

  const submit = async () => (await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).body.id as string;
  const post = (path: string, fields: Record<string, string>, options: { session?: ApproverSession; csrf?: string | null; type?: string; headers?: Record<string, string> } = {}) => {
    const session = options.session ?? alice;
    const form = new URLSearchParams({ ...(options.csrf === null ? {} : { csrf: options.csrf ?? session.csrf }), ...fields });
    return a.call("POST", path, { token: null, headers: { cookie: session.cookie, "content-type": options.type ?? "application/x-www-form-urlencoded", ...options.headers }, rawBody: form.toString() });
  };
  const page = (path: string) => a.call("GET", path, { session: alice });

  it("without a session every page is a 401 that says how to log in; a submitter token is refused outright", async () => {
    const id = await submit();
    for (const path of ["/", `/requests/${id}`, "/rules"]) {
      const answer = await a.call("GET", path, { token: null });
      expect(answer.status, path).toBe(401);
      expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
      expect(answer.body).toContain("countersign ui");
      expect(answer.body).not.toContain(id);
      expect((await a.call("GET", path)).status, path).toBe(403); // the submitter's bearer token
    }
    expect((await a.call("POST", `/requests/${id}/decide`, { token: null, headers: { "content-type": "application/x-www-form-urlencoded" }, rawBody: "action=approve_once" })).status).toBe(401);
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.status).toBe("pending");
  });

  it("the stylesheet and the script are served from the authority itself, and the CSP allows nothing else", async () => {
    const css = await a.call("GET", "/ui/app.css", { token: null });
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    const js = await a.call("GET", "/ui/live.js", { token: null });
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.body).toContain('new EventSource("/v1/events")');
    const inbox = await page("/");
    expect(inbox.body).toContain('<script src="/ui/live.js" defer></script>');
    expect(inbox.body.match(/<script/g)).toHaveLength(1);
    expect(inbox.headers.get("content-security-policy")).toContain("default-src 'none'");
  });

  it("a form post needs the session's CSRF token in its csrf field, and must be a url-encoded form", async () => {
    const id = await submit();
    expect((await post(`/requests/${id}/decide`, { action: "approve_once" }, { csrf: null })).status).toBe(403);
    expect((await post(`/requests/${id}/decide`, { action: "approve_once" }, { csrf: "forged" })).status).toBe(403);
    expect((await post(`/requests/${id}/decide`, { action: "approve_once" }, { type: "text/plain" })).status).toBe(415);
    expect((await post(`/requests/${id}/decide`, { action: "approve_once" }, { headers: { origin: "http://evil.example" } })).status).toBe(403);
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.status).toBe("pending");
    const done = await post(`/requests/${id}/decide`, { action: "approve_once" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(`/requests/${id}`);
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.decision).toMatchObject({ kind: "approved_once", approver: "alice" });
  });

  it("a refused decision answers with the page, the reason and what was typed; nothing is decided", async () => {
    const id = await submit();
    const empty = await post(`/requests/${id}/decide`, { action: "reject", text: "   " });
    expect(empty.status).toBe(400);
    expect(empty.body).toContain("a rejection needs a reason");
    const scope = await post(`/requests/${id}/decide`, { action: "approve_remember", scope: "all-of-them", lifetime: "hour" });
    expect(scope.status).toBe(400);
    expect(scope.body).toContain("choose whom the rule applies to and for how long");
    expect((await post(`/requests/${id}/decide`, { action: "approve_twice" })).status).toBe(400);
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.status).toBe("pending");
    await post(`/requests/${id}/decide`, { action: "reject", text: "no" });
    const again = await post(`/requests/${id}/decide`, { action: "ask", text: "Please change the subject." });
    expect(again.status).toBe(409);
    expect(again.body).toContain(`request ${id} is already rejected`);
    expect(again.body).not.toContain('id="ask-text"'); // a final request has no actions
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.decision).toMatchObject({ kind: "rejected", reason: "no" });
  });

  it("approve and remember that cannot pin the program is refused with the reason; approve once still works", async () => {
    const id = (await a.call("POST", "/v1/requests", { body: { program: example("draft-and-send.ts") } })).body.id as string;
    const shown = await page(`/requests/${id}`);
    expect(shown.body).toContain("This approval cannot be remembered: email.send_draft: draft_id is");
    expect(shown.body).not.toContain('id="approve-remember"');
    const refused = await post(`/requests/${id}/decide`, { action: "approve_remember", scope: "token", lifetime: "hour" });
    expect(refused.status).toBe(422);
    expect(refused.body).toContain("cannot remember this approval");
    expect((await post(`/requests/${id}/decide`, { action: "approve_once" })).status).toBe(303);
  });

  it("a question is answered from the facts with a redirect to the answer; the request keeps waiting", async () => {
    const id = await submit();
    const asked = await post(`/requests/${id}/decide`, { action: "ask", text: "How many emails?" });
    expect(asked.status).toBe(303);
    expect(asked.headers.get("location")).toBe(`/requests/${id}?q=How%20many%20emails%3F#answer`);
    const shown = await page(`/requests/${id}?q=How%20many%20emails%3F`);
    expect(shown.body).toContain("Answered from the analysis; the agent was not asked.");
    expect(shown.body).toContain("Exactly 1 email.");
    expect(shown.body).toContain("You asked: How many emails will be sent?");
    // The page words the question itself: a crafted link cannot make it say something else.
    const crafted = await page(`/requests/${id}?q=${encodeURIComponent("Tell me how many mails SAFE TO APPROVE are sent")}`);
    expect(crafted.body).toContain("You asked: How many emails will be sent?");
    expect(crafted.body).not.toContain("SAFE TO APPROVE");
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.status).toBe("pending");
    // Text the facts do not answer, in the URL, answers nothing.
    expect((await page(`/requests/${id}?q=${encodeURIComponent("Why?")}`)).body).not.toContain('id="answer"');
  });

  it("who gets a draft that is sent: the page says the recipients are read from the draft at run time and checked", async () => {
    const id = (await a.call("POST", "/v1/requests", { body: { program: example("draft-and-send.ts") } })).body.id as string;
    const shown = await page(`/requests/${id}?q=${encodeURIComponent("Who gets the email?")}`);
    expect(shown.body).toContain("to the recipients of the draft it sends");
    expect(shown.body).toContain("when it is sent, the draft is read again and its recipients are checked");
    expect(shown.body).not.toContain("not among its arguments");
  });

  it("GET /v1/requests/:id/page gives the page's content as data, to the approver only", async () => {
    const id = (await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts"), rationale: "\u202Eok" } })).body.id as string;
    const data = await a.call("GET", `/v1/requests/${id}/page`, { session: alice });
    expect(data.status).toBe(200);
    expect(data.body).toMatchObject({ id, status: "pending", final: false, verdict: { kind: "ask" }, rationale: { submitter: "⟨U+202E⟩ok" }, remember: { rules: [expect.objectContaining({ op: "email.send_email" })] } });
    expect(data.body.calls).toEqual([expect.objectContaining({ op: "email.send_email", line: 12 })]);
    expect((await a.call("GET", `/v1/requests/${id}/page`)).status).toBe(403); // the submitter's token
    expect((await a.call("GET", `/v1/requests/${id}/page`, { token: null })).status).toBe(401);
    expect((await a.call("GET", "/v1/requests/req_nope/page", { session: alice })).status).toBe(404);
  });

  it("an unknown request is a 404 page; forgetting a rule needs the CSRF token too", async () => {
    const missing = await page("/requests/req_nope");
    expect(missing.status).toBe(404);
    expect(missing.body).toContain("There is no request req_nope.");
    const id = await submit();
    await post(`/requests/${id}/decide`, { action: "approve_remember", scope: "everyone", lifetime: "forever" });
    const rules = await page("/rules");
    expect(rules.body).toContain("every agent");
    expect(rules.body).toContain("until removed");
    const ruleId = /data-rule="([^"]+)"/.exec(rules.body)![1]!;
    expect((await post(`/rules/${ruleId}/forget`, {}, { csrf: null })).status).toBe(403);
    expect((await post(`/rules/${ruleId}/forget`, {})).status).toBe(303);
    expect((await page("/rules")).body).toContain("No remembered rule applies.");
  });
});
