// The request page's HTML from a view model: previews as the preview step attaches them, and
// values from outside (a draft's body, a page title) escaped like the agent's own text.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../../src/analyze/index.js";
import { requestPage } from "../../../src/app/index.js";
import { requestView } from "../../../src/authority/ui/request-view.js";
import { loadPolicy } from "../../../src/config/index.js";
import type { PreviewShown, StoredRequest } from "../../../src/model/index.js";
import { packageRoot } from "../../../src/model/paths.js";
import { decide } from "../../../src/policy/index.js";
import { shippedManifests } from "../../policy/helpers.js";

const manifests = shippedManifests();
const analyzer = createAnalyzer(manifests);
afterAll(() => analyzer.dispose());

function request(): StoredRequest {
  const source = readFileSync(join(packageRoot, "examples", "draft-and-send.ts"), "utf8");
  const facts = analyzer.analyze(source, { entry: "draft-and-send.ts" });
  const policy = decide(facts, loadPolicy(join(packageRoot, "policies"), { manifests, home: "/home/user" }), manifests);
  return { id: "req_AAAAAAAAAAAAAAAAAAAAAA", seq: 1, token: "agent", status: "pending", source, facts, policy, rationale: null, created_at: 0, deadline_at: 900_000, decision: null };
}
const options = { csrf: "token", approver: "alice", now: 60_000, pending: 1 };
const render = async (previews?: PreviewShown[]) => String(await requestView(requestPage({ request: request(), previews }), options));

describe("the request page's previews", () => {
  it("shows fields, multiline ones as scrollable blocks, n/a for missing ones, and why a preview is unavailable", async () => {
    const page = await render([
      { effect: 0, op: "email.send_draft", site: { line: 16, column: 11 }, args: { draft_id: "d1" }, fields: [{ label: "To", value: "bob@example.com", multiline: false }, { label: "Body", value: "Hi Bob,\n<script>x()</script>", multiline: true }, { label: "Cc", value: "n/a", multiline: false }] },
      { effect: 0, op: "email.send_draft", site: { line: 16, column: 11 }, args: {}, unavailable: "Preview unavailable: the draft service timed out after 5 s" },
    ]);
    const section = page.slice(page.indexOf('id="h-previews"'), page.indexOf('id="h-agent"'));
    expect(section).toContain('<b>email.send_draft</b> <a href="#L16" class="line">line 16</a>');
    expect(section).toContain("<dt>To</dt><dd>bob@example.com</dd>");
    expect(section).toContain('<dt>Body</dt><dd><pre class="scroll">Hi Bob,\n&lt;script&gt;x()&lt;/script&gt;</pre></dd>');
    expect(section).toContain("<dt>Cc</dt><dd>n/a</dd>");
    expect(section).toContain('<span class="unavailable">Preview unavailable: the draft service timed out after 5 s</span>');
  });

  it("says there is no preview when the request has none", async () => {
    for (const previews of [undefined, []]) expect(await render(previews)).toContain("No preview for this request.");
  });
});
