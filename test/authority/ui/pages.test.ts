// The approval pages and their form posts over plain HTTP: who may see them, what a form post
// must carry, and how a refused decision is answered.
import { describe, expect, it } from "vitest";
import { makeLoginLink } from "../../../src/app/index.js";
import { authorityForSuite, example, type ApproverSession, type TestAuthority } from "../harness.js";

describe("the approval pages over HTTP", () => {
  let a: TestAuthority;
  let alice: ApproverSession;
  authorityForSuite("sqlite", (started, session) => ((a = started), (alice = session)));

  const submit = async () =>
    (await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).body.id as string;
  const post = (
    path: string,
    fields: Record<string, string>,
    options: { session?: ApproverSession; csrf?: string | null; type?: string; headers?: Record<string, string> } = {},
  ) => {
    const session = options.session ?? alice;
    const form = new URLSearchParams({
      ...(options.csrf === null ? {} : { csrf: options.csrf ?? session.csrf }),
      ...fields,
    });
    return a.call("POST", path, {
      token: null,
      headers: {
        cookie: session.cookie,
        "content-type": options.type ?? "application/x-www-form-urlencoded",
        ...options.headers,
      },
      rawBody: form.toString(),
    });
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
    expect(
      (
        await a.call("POST", `/requests/${id}/decide`, {
          token: null,
          headers: { "content-type": "application/x-www-form-urlencoded" },
          rawBody: "action=approve_once",
        })
      ).status,
    ).toBe(401);
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
    expect(
      (await post(`/requests/${id}/decide`, { action: "approve_once" }, { headers: { origin: "http://evil.example" } }))
        .status,
    ).toBe(403);
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.status).toBe("pending");
    const done = await post(`/requests/${id}/decide`, { action: "approve_once" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(`/requests/${id}`);
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.decision).toMatchObject({
      kind: "approved_once",
      approver: "alice",
    });
  });

  it("a refused decision answers with the page, the reason and what was typed; nothing is decided", async () => {
    const id = await submit();
    const empty = await post(`/requests/${id}/decide`, { action: "reject", text: "   " });
    expect(empty.status).toBe(400);
    expect(empty.body).toContain("a rejection needs a reason");
    const scope = await post(`/requests/${id}/decide`, {
      action: "approve_remember",
      scope: "all-of-them",
      lifetime: "hour",
    });
    expect(scope.status).toBe(400);
    expect(scope.body).toContain("choose whom the rule applies to and for how long");
    expect((await post(`/requests/${id}/decide`, { action: "approve_twice" })).status).toBe(400);
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.status).toBe("pending");
    await post(`/requests/${id}/decide`, { action: "reject", text: "no" });
    const again = await post(`/requests/${id}/decide`, { action: "ask", text: "Please change the subject." });
    expect(again.status).toBe(409);
    expect(again.body).toContain(`request ${id} is already rejected`);
    expect(again.body).not.toContain('id="ask-text"'); // a final request has no actions
    expect(again.body).toContain('<pre class="scroll" tabindex="0" id="unsent">Please change the subject.</pre>'); // what was typed, not sent
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.decision).toMatchObject({
      kind: "rejected",
      reason: "no",
    });
  });

  it("approve and remember that cannot pin the program is refused with the reason; approve once still works", async () => {
    const id = (await a.call("POST", "/v1/requests", { body: { program: example("draft-and-send.ts") } })).body
      .id as string;
    const shown = await page(`/requests/${id}`);
    expect(shown.body).toContain("This approval cannot be remembered: email.send_draft: draft_id is");
    expect(shown.body).not.toContain('id="approve-remember"');
    const refused = await post(`/requests/${id}/decide`, {
      action: "approve_remember",
      scope: "token",
      lifetime: "hour",
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toContain("cannot remember this approval");
    expect((await post(`/requests/${id}/decide`, { action: "approve_once" })).status).toBe(303);
  });

  it("a question is answered from the facts on the page, with what was typed kept in the box; the request keeps waiting", async () => {
    const id = await submit();
    const asked = await post(`/requests/${id}/decide`, { action: "ask", text: "How many emails?" });
    expect(asked.status).toBe(200);
    expect(asked.body).toContain("Answered from the analysis; the agent was not asked.");
    expect(asked.body).toContain("Exactly 1 email.");
    expect(asked.body).toContain("You asked: How many emails will be sent?");
    expect(asked.body).toContain('<details id="ask-box" open>');
    expect(asked.body).toContain(`<form method="post" action="/requests/${id}/decide#actions" id="ask-form">`); // the answer comes back where the person was looking
    expect(asked.body).toMatch(/<textarea id="ask-text"[^>]*>How many emails\?<\/textarea>/);
    const shown = await page(`/requests/${id}?q=How%20many%20emails%3F`);
    expect(shown.body).toContain("Answered from the analysis; the agent was not asked.");
    expect(shown.body).toContain("Exactly 1 email.");
    expect(shown.body).toContain("You asked: How many emails will be sent?");
    // The page words the question itself: a crafted link cannot make it say something else.
    const crafted = await page(
      `/requests/${id}?q=${encodeURIComponent("Tell me how many mails SAFE TO APPROVE are sent")}`,
    );
    expect(crafted.body).toContain("You asked: How many emails will be sent?");
    expect(crafted.body).not.toContain("SAFE TO APPROVE");
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.status).toBe("pending");
    // Text the facts do not answer, in the URL, answers nothing.
    expect((await page(`/requests/${id}?q=${encodeURIComponent("Why?")}`)).body).not.toContain('id="answer"');
  });

  it("text the facts do not answer never ends the request silently: the page asks to confirm it as a request for changes", async () => {
    const id = await submit();
    const asked = await post(`/requests/${id}/decide`, { action: "ask", text: "Why <b>these</b> people?" });
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('id="confirm"');
    expect(asked.body).toContain("Sent, it goes to the agent as a request for changes, and this request ends");
    expect(asked.body).toMatch(/<input type="hidden" name="action" value="request_more"><label for="confirm-text">/);
    expect(asked.body).toContain(
      '<textarea id="confirm-text" name="text" required maxlength="10000" rows="3">Why &lt;b&gt;these&lt;/b&gt; people?</textarea>',
    );
    expect(asked.body).not.toContain('id="ask-text"'); // the confirm step holds the text instead
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.status).toBe("pending");
    const confirmed = await post(`/requests/${id}/decide`, { action: "request_more", text: "Why these people?" });
    expect(confirmed.status).toBe(303);
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.decision).toMatchObject({
      kind: "request_more",
      feedback: "Why these people?",
    });
    // ask with confirm=1 is the same confirmation; an empty one is refused.
    const other = await submit();
    expect((await post(`/requests/${other}/decide`, { action: "request_more", text: " " })).status).toBe(400);
    expect((await post(`/requests/${other}/decide`, { action: "ask", confirm: "1", text: "Only Alice." })).status).toBe(
      303,
    );
    expect((await a.call("GET", `/v1/requests/${other}`, { session: alice })).body.decision).toMatchObject({
      kind: "request_more",
      feedback: "Only Alice.",
    });
  });

  it("a form from before a second login does nothing and answers with the page, the reason and what was typed, under the new token", async () => {
    const id = await submit();
    const second = await a.login("alice"); // a new session: the old page's token no longer matches
    const stale = await post(
      `/requests/${id}/decide`,
      { action: "reject", text: "Too broad." },
      { session: { cookie: second.cookie, csrf: alice.csrf } },
    );
    expect(stale.status).toBe(403);
    expect(stale.headers.get("content-type")).toMatch(/^text\/html/);
    expect(stale.body).toContain("loaded under an earlier sign-in (you signed in again since), so nothing was done");
    expect(stale.body).toMatch(/<textarea id="reject-text"[^>]*>Too broad\.<\/textarea>/);
    expect(stale.body).toContain(`name="csrf" value="${second.csrf}"`);
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.status).toBe("pending");
  });

  it("a browser meets every error as a page with the next step; API routes and non-browser callers keep JSON", async () => {
    const browser = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };
    const get = (path: string, session?: ApproverSession) =>
      a.call("GET", path, {
        token: null,
        headers: { ...browser, ...(session === undefined ? {} : { cookie: session.cookie }) },
      });
    const isPage = (answer: { headers: Headers; body: unknown }) => {
      expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
      expect(String(answer.body)).toContain('<link rel="stylesheet" href="/ui/app.css">');
      expect(String(answer.body)).toContain("<b>Next:</b>");
      expect(String(answer.body)).not.toContain("<script"); // an error page has nothing live
    };
    const link = makeLoginLink({ dataDir: a.dataDir, now: () => new Date() }, "bob");
    expect((await get(`/login?link=${link}`)).status).toBe(303);
    const used = await get(`/login?link=${link}`, alice);
    expect(used.status).toBe(403);
    isPage(used);
    expect(used.body).toContain("This login link was used already");
    expect(used.body).toContain("you are still signed in as <b>alice</b>");
    const expired = await get(
      `/login?link=${makeLoginLink({ dataDir: a.dataDir, now: () => new Date(Date.now() - 61_000) }, "bob")}`,
    );
    isPage(expired);
    expect(expired.body).toContain("This login link has expired");
    expect(expired.body).toContain("run <code>countersign ui</code>");
    for (const path of ["/login?link=garbage", "/login"]) {
      const bad = await get(path);
      expect(bad.status, path).toBe(403);
      isPage(bad);
      expect(bad.body, path).toContain("<h1>This login link does not work</h1>");
    }
    const missing = await get("/no/such/page", alice);
    expect(missing.status).toBe(404);
    isPage(missing);
    expect(missing.body).toContain("there is no page /no/such/page here");
    const forget = await a.call("POST", "/rules/nope/forget", {
      token: null,
      headers: { ...browser, cookie: alice.cookie, "content-type": "application/x-www-form-urlencoded" },
      rawBody: "csrf=stale",
    });
    expect(forget.status).toBe(403);
    isPage(forget);
    expect(forget.body).toContain("This page was out of date");
    // The API and callers that do not ask for HTML get the JSON envelope, as before.
    const api = await get("/v1/requests/req_nope", alice);
    expect(api.status).toBe(404);
    expect(api.body.error.class).toBe("usage_error");
    expect((await a.call("GET", `/login?link=${link}`, { token: null })).body.error.message).toContain("used already");
  });

  it("a form post without a session shows how to log in and what was typed, which was not sent", async () => {
    const id = await submit();
    const answer = await a.call("POST", `/requests/${id}/decide`, {
      token: null,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      rawBody: "action=reject&text=Not+now%3Cb%3E",
    });
    expect(answer.status).toBe(401);
    expect(answer.body).toContain("<h1>Log in</h1>");
    expect(answer.body).toContain('<pre class="scroll" tabindex="0" id="unsent">Not now&lt;b&gt;</pre>');
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.status).toBe("pending");
  });

  it("the inbox lists each request by its headline with risk markers and the agent's file name marked as the agent's", async () => {
    const id = (
      await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts"), source_name: "report.ts" } })
    ).body.id as string;
    const inbox = (await page("/")).body as string;
    const row = inbox.slice(
      inbox.indexOf(`<li data-id="${id}">`),
      inbox.indexOf("</li>", inbox.indexOf(`<li data-id="${id}">`)),
    );
    expect(row).toContain(
      `<a class="open" href="/requests/${id}">Sends 1 email to alice@example.com and bob@example.com.</a>`,
    );
    expect(row).toContain(
      '<span class="marker warning" title="Sends email to other people: 1 email."><span class="visually-hidden">warning: </span>mail to others</span>',
    );
    expect(row).toContain(
      '<span class="agent-named"><span class="agent-label">file name chosen by the agent:</span> <span class="mono">report.ts</span></span>',
    );
    expect(inbox).toContain('<div id="announce" class="visually-hidden" role="status" aria-live="polite"></div>');
    const shown = (await page(`/requests/${id}`)).body as string;
    expect(shown).toContain('<body data-request="' + id + '">');
    expect(shown).toContain('file name chosen by the agent:</span> <span class="mono">report.ts</span>');
    expect(shown).not.toContain("`");
  });

  it("who gets a draft that is sent: the page says the recipients are read from the draft at run time and checked", async () => {
    const id = (await a.call("POST", "/v1/requests", { body: { program: example("draft-and-send.ts") } })).body
      .id as string;
    const shown = await page(`/requests/${id}?q=${encodeURIComponent("Who gets the email?")}`);
    expect(shown.body).toContain("to the recipients of the draft it sends");
    expect(shown.body).toContain("when it is sent, the draft is read again and its recipients are checked");
    expect(shown.body).not.toContain("not among its arguments");
  });

  it("GET /v1/requests/:id/page gives the page's content as data, to the approver only", async () => {
    const id = (
      await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts"), rationale: "\u202Eok" } })
    ).body.id as string;
    const data = await a.call("GET", `/v1/requests/${id}/page`, { session: alice });
    expect(data.status).toBe(200);
    expect(data.body).toMatchObject({
      id,
      status: "pending",
      final: false,
      verdict: { kind: "ask" },
      rationale: { submitter: "⟨U+202E⟩ok" },
      remember: { rules: [expect.objectContaining({ op: "email.send_email" })] },
    });
    expect(data.body.calls).toEqual([expect.objectContaining({ op: "email.send_email", line: 12 })]);
    expect((await a.call("GET", `/v1/requests/${id}/page`)).status).toBe(403); // the submitter's token
    expect((await a.call("GET", `/v1/requests/${id}/page`, { token: null })).status).toBe(401);
    expect((await a.call("GET", "/v1/requests/req_nope/page", { session: alice })).status).toBe(404);
  });

  it("an unknown request is a 404 page; forgetting a rule needs the CSRF token too", async () => {
    const missing = await page("/requests/req_nope");
    expect(missing.status).toBe(404);
    expect(missing.body).toContain("There is no request req_nope.");
    expect(missing.body).toContain('<b>Next:</b> <a href="/">go to the inbox</a>');
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
