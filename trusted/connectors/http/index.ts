// The http connector: GET and POST to absolute URLs. The host allows only the hosts of the
// user's connection and caps the response size; an answer of 400 or more is an external API error.
import { J, Kind } from "../shared/json";
import { fail, failed, run, stringArg } from "../shared/plugin";
import { httpRequest } from "../shared/host";

function absoluteUrl(args: J): string {
  const url = stringArg(args, "url");
  if (!failed() && !url.startsWith("https://") && !url.startsWith("http://")) {
    fail("connector_error", "url must be an absolute http:// or https:// URL");
  }
  return url;
}

function send(req: J): J {
  const a = httpRequest(req);
  if (a == null) return new J();
  const status = a.get("status");
  const code = status != null && status.kind == Kind.Num ? <i32>status.n : 0;
  if (code >= 400 || code == 0) return fail("external_api_error", "the server answered " + code.toString(), code);
  const out = J.obj().set("status", J.num(<f64>code));
  const headers = a.get("headers");
  out.set("headers", headers != null ? headers : J.obj());
  const body = a.get("body");
  return out.set("body", body != null ? body : J.str(""));
}

function getUrl(args: J): J {
  const url = absoluteUrl(args);
  if (failed()) return new J();
  return send(J.obj().set("method", J.str("GET")).set("url", J.str(url)));
}

function postBody(args: J): J {
  const url = absoluteUrl(args);
  const body = stringArg(args, "body");
  if (failed()) return new J();
  const ct = args.getString("content_type");
  const headers = J.obj().set("content-type", J.str(ct != null ? ct : "application/json"));
  return send(J.obj().set("method", J.str("POST")).set("url", J.str(url)).set("headers", headers).set("body", J.str(body)));
}

export function get(): i32 { return run(getUrl); }
export function post(): i32 { return run(postBody); }
