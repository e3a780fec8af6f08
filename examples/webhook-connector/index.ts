// A webhook connector, the example of docs/connectors.md: `notify` posts `{ "text": ... }` to
// `/hooks/<channel>` on the connection's base_url (a Slack- or Mattermost-style incoming webhook).
// Built with the project's build (scripts/build-connectors.mjs: buildWasm), pinned by sha256 in
// manifests/webhook/connector.toml.
import { J, Kind } from "../../trusted/connectors/shared/json";
import { fail, failed, run, stringArg } from "../../trusted/connectors/shared/plugin";
import { httpRequest } from "../../trusted/connectors/shared/host";

/** A channel name goes into the request path: 1 to 64 lower-case letters, digits or -. */
function isChannel(c: string): bool {
  if (c.length == 0 || c.length > 64) return false;
  for (let i = 0; i < c.length; i++) {
    const ch = c.charCodeAt(i);
    if (!((ch >= 0x61 && ch <= 0x7a) || (ch >= 0x30 && ch <= 0x39) || ch == 0x2d)) return false;
  }
  return true;
}

function notify(args: J): J {
  const channel = stringArg(args, "channel");
  const text = stringArg(args, "text");
  if (failed()) return new J();
  if (!isChannel(channel)) return fail("connector_error", "channel must be 1 to 64 lower-case letters, digits or -");
  const body = J.obj().set("text", J.str(text)).stringify();
  const headers = J.obj().set("content-type", J.str("application/json"));
  const answer = httpRequest(J.obj().set("method", J.str("POST")).set("url", J.str("/hooks/" + channel)).set("headers", headers).set("body", J.str(body)));
  if (answer == null) return new J(); // the host refused the request: its error stands
  const status = answer.get("status");
  const code = status != null && status.kind == Kind.Num ? <i32>status.n : 0;
  if (code < 200 || code > 299) return fail("external_api_error", "the webhook answered " + code.toString(), code);
  return J.obj().set("status", J.num(<f64>code));
}

export function post_message(): i32 { return run(notify); }
