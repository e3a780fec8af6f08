// POST /v1/requests/:id/question against a real authority on 127.0.0.1: a question the facts
// answer comes back in countersign's own words, anything else is { answered: false } and decides
// nothing; only a logged-in approver with the CSRF token may ask, and a bad body is a clear 4xx.
import { describe, expect, it } from "vitest";
import { MAX_RATIONALE_CHARS } from "../../src/model/index.js";
import { authorityForSuite, example, type ApproverSession, type TestAuthority } from "./harness.js";

const MAX_BODY_BYTES = 64 * 1024;

describe("POST /v1/requests/:id/question", () => {
  let a: TestAuthority;
  let alice: ApproverSession;
  authorityForSuite("sqlite", (started, session) => ((a = started), (alice = session)), {
    maxBodyBytes: MAX_BODY_BYTES,
  });

  const pending = async (name = "notify-team.ts") => {
    const answer = await a.call("POST", "/v1/requests", { body: { program: example(name), source_name: name } });
    expect(answer.status).toBe(202);
    return answer.body.id as string;
  };
  const ask = (
    id: string,
    question: unknown,
    options: { session?: ApproverSession; csrf?: boolean; token?: string | null } = {},
  ) => a.call("POST", `/v1/requests/${id}/question`, { session: alice, body: { question }, ...options });

  it("answers a question from the facts, in countersign's words, and the request keeps waiting", async () => {
    const id = await pending();
    const who = await ask(id, "who gets the email?");
    expect(who).toMatchObject({ status: 200, body: { answered: true, question: "Who will be emailed?" } });
    expect(who.body.lines[0]).toBe("At line 12 it sends an email once, to alice@example.com and bob@example.com.");
    const files = await ask(id, "tell me what files will be written");
    expect(files.body).toEqual({
      answered: true,
      question: "Which files will be written?",
      lines: ["None: the program writes no file.", expect.stringMatching(/^Guarantee /)],
    });
    for (const line of [...who.body.lines, ...files.body.lines]) expect(line).not.toMatch(/`/);
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.status).toBe("pending");
  });

  it("a text that asks for a change is not answered, and decides nothing", async () => {
    const id = await pending();
    for (const text of ["Send it to Alice only, please.", "Who will be emailed? Also remove Bob.", "Why?"]) {
      expect(await ask(id, text)).toMatchObject({ status: 200, body: { answered: false } });
    }
    const request = (await a.call("GET", `/v1/requests/${id}`, { session: alice })).body;
    expect(request).toMatchObject({ status: "pending", decision: null });
  });

  it("an unknown request is 404", async () => {
    const answer = await ask("req_nothing", "Who will be emailed?");
    expect(answer.status).toBe(404);
    expect(answer.body.error).toMatchObject({ details: { reason: "not_found" } });
  });

  it("a submitter's token may not ask; nor may anyone without a session", async () => {
    const id = await pending();
    const submitter = await a.call("POST", `/v1/requests/${id}/question`, {
      body: { question: "Who will be emailed?" },
    });
    expect([401, 403]).toContain(submitter.status);
    expect(submitter.body.answered).toBeUndefined();
    const nobody = await a.call("POST", `/v1/requests/${id}/question`, {
      token: null,
      body: { question: "Who will be emailed?" },
    });
    expect([401, 403]).toContain(nobody.status);
  });

  it("the CSRF token is required", async () => {
    const id = await pending();
    const answer = await ask(id, "Who will be emailed?", { csrf: false });
    expect(answer.status).toBe(403);
    expect(answer.body.error).toMatchObject({ details: { reason: "csrf" } });
  });

  it("a malformed, empty, oversized or non-JSON body is a clear 4xx", async () => {
    const id = await pending();
    const path = `/v1/requests/${id}/question`;
    const malformed = await a.call("POST", path, {
      session: alice,
      rawBody: "{question:",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.message).toMatch(/^the body is not valid JSON/);
    const empty = await ask(id, "");
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toBe("invalid body at question: write a question");
    const wrongType = await ask(id, 42);
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.message).toMatch(/^invalid body at question: /);
    const extra = await a.call("POST", path, { session: alice, body: { question: "Who?", decision: "approved_once" } });
    expect(extra.status).toBe(400);
    const long = await ask(id, `who ${"x".repeat(MAX_RATIONALE_CHARS)}?`);
    expect(long.status).toBe(400);
    expect(long.body.error.message).toMatch(/^invalid body at question: /);
    const huge = await a.call("POST", path, {
      session: alice,
      rawBody: JSON.stringify({ question: "x".repeat(MAX_BODY_BYTES * 2) }),
      headers: { "content-type": "application/json" },
    });
    expect(huge.status).toBe(413);
    const form = await a.call("POST", path, {
      session: alice,
      rawBody: "question=who",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.status).toBe("pending");
  });
});
