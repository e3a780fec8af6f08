// GET /v1/handles/:id against a real authority on 127.0.0.1 (SQLite): a held value goes to the
// submitter it was held for, and to no other agent.
import { describe, expect, it } from "vitest";
import { HandleView } from "../../src/model/index.js";
import { authorityForSuite, type ApproverSession, type TestAuthority } from "./harness.js";

describe("GET /v1/handles/:id", () => {
  let a: TestAuthority;
  let alice: ApproverSession;
  authorityForSuite("sqlite", (started, session) => ((a = started), (alice = session)));

  const hold = async (id: string) => {
    const submitter = (await a.authority.state.store.authenticate(a.token))!;
    await a.authority.state.store.putHandles([
      {
        id,
        submitter,
        request_id: "req_1",
        from: ["email.get_draft"],
        path: "$.body",
        value: { body: "wire the money" },
      },
    ]);
  };

  it("gives the held value to its submitter", async () => {
    await hold("h_mine");
    const answer = await a.call("GET", "/v1/handles/h_mine");
    expect(answer.status).toBe(200);
    expect(HandleView.parse(answer.body)).toMatchObject({
      id: "h_mine",
      value: { body: "wire the money" },
      from: ["email.get_draft"],
      request_id: "req_1",
    });
  });

  it("a second agent's token cannot read the first's handle: 404, as for a handle that does not exist", async () => {
    await hold("h_theirs");
    const other = (await a.authority.state.store.addToken("second-agent")).token;
    const stolen = await a.call("GET", "/v1/handles/h_theirs", { token: other });
    expect(stolen.status).toBe(404);
    expect(JSON.stringify(stolen.body)).not.toContain("wire the money");
    expect((await a.call("GET", "/v1/handles/h_nothing")).status).toBe(404);
    expect((await a.call("GET", "/v1/handles/not%20an%20id")).status).toBe(404);
  });

  it("needs a submitter token: none, a wrong one and an approver session are refused", async () => {
    await hold("h_auth");
    expect((await a.call("GET", "/v1/handles/h_auth", { token: null })).status).toBe(401);
    expect((await a.call("GET", "/v1/handles/h_auth", { token: "not-a-token" })).status).toBe(401);
    expect((await a.call("GET", "/v1/handles/h_auth", { token: null, session: alice })).status).toBe(401);
  });
});
