// Previews: an agent-submitted action whose [approval.preview] reads a URL taken from the call's
// arguments. Showing the request to the person must not make a request the policy denies: the
// preview read is an effect like any other, and showing happens before anyone approved anything.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { program, shown, SLOW, useWorld } from "./world.js";

const w = useWorld({
  sinks: 2,
  policies: (world) => ({
    "attacks.toml": `default = "deny"

[[rules]]
id = "http.s2-denied"
decision = "deny"
op = "http.*"
when = { args = { url = { host_in = ["${world.sinks[1]!.host}"] } } }
reason = "never that host"

[[rules]]
id = "http.s1-public-asks"
decision = "ask"
op = "http.*"
when = { args = { url = { prefix = "${world.sinks[0]!.origin}/public/" } } }
reason = "posting needs a look"
`,
  }),
});
let manifest: string;

beforeAll(() => {
  manifest = join(w.home, "post_note.toml");
  writeFileSync(
    manifest,
    `name = "post_note"
version = "1.0.0"
description = "Post a note to the team board."
idempotent = false

[[inputs]]
name = "note"
type = "string"
description = "The note."

[[inputs]]
name = "source"
type = "string"
description = "The page the note is about, shown to the approver."

[[execute]]
id = "post"
connector = "http"
op = "post"
inputs = { url = "${w.sinks[0]!.origin}/public/notes", body = "\${args.note}", content_type = "text/plain" }

[approval]
required = true

[approval.preview]
op = "get"
args = { url = "\${args.source}" }
render = { Source = "body" }
`,
  );
});

/** Submit the call, show it to the person every way there is, then reject it; what the run said. */
async function showThenReject(source: string): Promise<string> {
  const running = w.start(["run", "-", "--manifest", manifest], {
    stdin: program(`    await postNote({ note: "hello", source: ${JSON.stringify(source)} });`, {
      imports: `import { postNote } from "trusted/agent";`,
    }),
  });
  const request = await w.reviewed(running);
  if (request !== null) await w.decide(request, { decision: "rejected", reason: "no" }); // opens the page, its data and the view first
  const r = await running.done;
  return `request ${request}: exit ${r.code}\n${r.stdout}${r.stderr}`;
}

describe("a preview that reads a URL from the call's arguments", () => {
  it(
    "pointing at a host the policy denies: showing the request sends nothing there",
    async () => {
      const said = await showThenReject(`${w.sinks[1]!.origin}/leak?token=from-the-agent`);
      expect(said).toMatch(/request req_/); // the request was shown: the case is not vacuous
      expect(shown(w.sinks[1]!.received), said).toBe("(nothing)");
    },
    SLOW,
  );

  it(
    "pointing at a path the policy does not allow on the allowed host: nothing arrives there",
    async () => {
      const said = await showThenReject(`${w.sinks[0]!.origin}/admin/delete?all=1`);
      expect(shown(w.sinks[0]!.received.filter((a) => !a.url.startsWith("/public/"))), said).toBe("(nothing)");
    },
    SLOW,
  );

  it(
    "a redirect from an allowed preview URL to a denied one: nothing arrives there",
    async () => {
      w.sinks[0]!.redirect("/public/preview", 302, `${w.sinks[1]!.origin}/via-redirect`);
      const before = w.sinks[1]!.received.length;
      const said = await showThenReject(`${w.sinks[0]!.origin}/public/preview`);
      expect(shown(w.sinks[1]!.received.slice(before)), said).toBe("(nothing)");
    },
    SLOW,
  );
});
