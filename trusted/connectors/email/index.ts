// The email connector, shaped like the Gmail REST API (users.drafts.create/get/send,
// users.messages.list/get/send). Paths are relative: the host sends them to the connection's base_url and
// adds the credential, which this plugin never sees.
import { J, Kind, parse } from "../shared/json";
import { decodeText, encodeText } from "../shared/base64";
import { ByteWriter } from "../shared/bytes";
import { fail, failed, run, stringArg } from "../shared/plugin";
import { httpRequest } from "../shared/host";

const API = "/gmail/v1/users/me";

/** One plain address: a single @, no separators, spaces or brackets that could smuggle in another recipient. */
function isPlainAddress(a: string): bool {
  const at = a.indexOf("@");
  if (at <= 0 || at != a.lastIndexOf("@") || at == a.length - 1 || a.length > 254) return false;
  for (let i = 0; i < a.length; i++) {
    const c = a.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f || c == 0x2c || c == 0x3b || c == 0x3c || c == 0x3e || c == 0x22 || c == 0x28 || c == 0x29 || c == 0x5c) return false;
  }
  return true;
}

/**
 * A plain address in the canonical form the constraint language compares in (src/constraint/
 * email-address.ts): ASCII letters in lower case, one trailing dot of the domain dropped — the
 * mailbox a constraint matched is the one the mail goes to. "" when it is not one plain address
 * or its domain has an empty label (`a@.x`, `a@x..y`, `a@x..`).
 */
function canonicalAddress(a: string): string {
  if (!isPlainAddress(a)) return "";
  const plain = a.endsWith(".") ? a.substring(0, a.length - 1) : a;
  const domain = plain.substring(plain.indexOf("@") + 1);
  if (domain.length == 0 || domain.startsWith(".") || domain.endsWith(".") || domain.includes("..")) return "";
  return plain.toLowerCase(); // only ASCII is left: it lowers A-Z and nothing else
}

function recipients(args: J): string {
  const to = args.get("to");
  if (to == null || to.kind != Kind.Arr || to.items.length == 0) {
    fail("connector_error", "input `to` must be a non-empty array of addresses");
    return "";
  }
  const list: string[] = [];
  for (let i = 0; i < to.items.length; i++) {
    const item = to.items[i];
    const address = item.kind == Kind.Str ? canonicalAddress(item.s) : "";
    if (address.length == 0) {
      fail("connector_error", "recipient " + i.toString() + " is not a plain email address");
      return "";
    }
    list.push(address);
  }
  return list.join(", ");
}

function hasLineBreak(s: string): bool {
  return s.includes("\r") || s.includes("\n");
}

function isAscii(s: string): bool {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x7f) return false;
  return true;
}

/** The RFC 5322 message, base64url-encoded as Gmail's `raw` field wants it. */
function rawMessage(args: J): string {
  const to = recipients(args);
  const subject = stringArg(args, "subject");
  const body = stringArg(args, "body");
  if (failed()) return "";
  if (hasLineBreak(subject)) {
    fail("connector_error", "subject must not contain line breaks");
    return "";
  }
  const encodedSubject = isAscii(subject) ? subject : "=?UTF-8?B?" + encodeText(subject, false) + "?=";
  const text =
    "To: " + to + "\r\n" +
    "Subject: " + encodedSubject + "\r\n" +
    "MIME-Version: 1.0\r\n" +
    "Content-Type: text/plain; charset=UTF-8\r\n" +
    "Content-Transfer-Encoding: 8bit\r\n\r\n" + body;
  return encodeText(text, true);
}

/** A draft's or a message's id as Gmail writes them, safe to put in a path as it is. */
function isApiId(id: string): bool {
  if (id.length == 0 || id.length > 128) return false;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    const ok = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x2d || c == 0x5f;
    if (!ok) return false;
  }
  return true;
}

function draftId(args: J): string {
  const id = stringArg(args, "id");
  if (!failed() && !isApiId(id)) fail("connector_error", "draft id must be 1 to 128 letters, digits, - or _");
  return id;
}

function messageId(args: J): string {
  const id = stringArg(args, "id");
  if (!failed() && !isApiId(id)) fail("connector_error", "message id must be 1 to 128 letters, digits, - or _");
  return id;
}

/** Call the API; a non-2xx answer becomes an external_api_error with the provider's status. */
function call(method: string, path: string, body: J | null): J {
  const req = J.obj().set("method", J.str(method)).set("url", J.str(API + path));
  if (body != null) {
    req.set("headers", J.obj().set("content-type", J.str("application/json")));
    req.set("body", J.str(body.stringify()));
  }
  const a = httpRequest(req);
  if (a == null) return new J();
  const status = a.get("status");
  const code = status != null && status.kind == Kind.Num ? <i32>status.n : 0;
  if (code < 200 || code > 299) return fail("external_api_error", "the mail API answered " + code.toString(), code);
  const text = a.getString("body");
  const parsed = text != null ? parseObject(text) : null;
  if (parsed == null) return fail("external_api_error", "the mail API answered with something other than a JSON object", code);
  return parsed;
}

function parseObject(text: string): J | null {
  const j = parse(Uint8Array.wrap(String.UTF8.encode(text)));
  return j != null && j.kind == Kind.Obj ? j : null;
}

function str(j: J, key: string): J {
  const v = j.getString(key);
  return J.str(v != null ? v : "");
}

function messageIds(message: J): J {
  return J.obj().set("id", str(message, "id")).set("thread_id", str(message, "threadId"));
}

function createDraft(args: J): J {
  const raw = rawMessage(args);
  if (failed()) return new J();
  const draft = call("POST", "/drafts", J.obj().set("message", J.obj().set("raw", J.str(raw))));
  if (failed()) return new J();
  const message = draft.get("message");
  return J.obj().set("id", str(draft, "id")).set("message_id", message != null ? str(message, "id") : J.str(""));
}

/** Header value by name, case-insensitive, as Gmail lists them in payload.headers. */
function header(payload: J, name: string): string {
  const headers = payload.get("headers");
  if (headers == null || headers.kind != Kind.Arr) return "";
  for (let i = 0; i < headers.items.length; i++) {
    const h = headers.items[i];
    const n = h.getString("name");
    const v = h.getString("value");
    if (n != null && v != null && n.toLowerCase() == name.toLowerCase()) return v;
  }
  return "";
}

function mimeType(part: J): string {
  const t = part.getString("mimeType");
  return t != null ? t.toLowerCase() : "";
}

/**
 * The plain-text body of a draft or a message: a text/plain payload's own data, or the one
 * text/plain part of a multipart payload (mail written in Gmail is multipart/alternative:
 * text/plain beside text/html). A draft's is what the wrapper checks and send_draft sends, as the
 * only body: the html alternative is not sent. A draft whose body cannot be that text alone (no or
 * several text/plain parts, an attachment, a part of another type) fails here, so nothing is
 * sent: never a message other than the one checked. A message is only read: its attachments and
 * parts of other types are left out. null after fail.
 */
function plainText(payload: J, what: string, isDraft: bool): string | null {
  const found: J[] = [];
  collectText(payload, 0, found, what, isDraft);
  if (failed()) return null;
  if (found.length != 1) {
    fail("connector_error", found.length == 0 ? "the " + what + " has no text/plain body: only plain text can be " + (isDraft ? "checked and sent" : "read") : "the " + what + " has several text/plain parts: only one plain-text body can be " + (isDraft ? "checked and sent" : "read"));
    return null;
  }
  const b = found[0].get("body");
  const data = b != null ? b.getString("data") : null;
  const decoded = data != null ? decodeText(data) : "";
  if (decoded == null) fail("external_api_error", what + " body is not valid base64url", 200);
  return decoded;
}

/**
 * The text/plain leaves of a MIME part tree, in order. For a draft, an attachment or a part that
 * is neither text/plain nor text/html fails the call; for a message it is skipped.
 */
function collectText(part: J, depth: i32, found: J[], what: string, isDraft: bool): void {
  const type = mimeType(part);
  if (type.startsWith("multipart/")) {
    const parts = part.get("parts");
    if (parts == null || parts.kind != Kind.Arr || depth >= 8) {
      fail("external_api_error", "the " + what + " has a multipart body without readable parts", 200);
      return;
    }
    for (let i = 0; i < parts.items.length && !failed(); i++) collectText(parts.items[i], depth + 1, found, what, isDraft);
    return;
  }
  const name = part.getString("filename");
  const b = part.get("body");
  if ((name != null && name.length > 0) || (b != null && b.get("attachmentId") != null)) {
    if (isDraft) fail("connector_error", "the draft has an attachment, which send_draft cannot check or send");
    return;
  }
  if (type == "text/plain" || type.length == 0) found.push(part);
  else if (type != "text/html" && isDraft) fail("connector_error", "the draft has a part of type " + type + ", which send_draft cannot check or send");
}

/** The addresses of an address header, split at commas. */
function addressList(payload: J, name: string): J {
  const list = header(payload, name).split(",");
  const out = J.arr();
  for (let i = 0; i < list.length; i++) {
    const a = list[i].trim();
    if (a.length > 0) out.push(J.str(a));
  }
  return out;
}

function getDraft(args: J): J {
  const id = draftId(args);
  if (failed()) return new J();
  const draft = call("GET", "/drafts/" + id + "?format=full", null);
  if (failed()) return new J();
  const message = draft.get("message");
  const payload = message != null ? message.get("payload") : null;
  const out = J.obj().set("id", str(draft, "id")).set("message", message != null ? message : J.obj());
  let to = J.arr();
  let body = "";
  let subject = "";
  if (payload != null) {
    to = addressList(payload, "To");
    subject = header(payload, "Subject");
    const text = plainText(payload, "draft", true);
    if (text == null) return new J();
    body = text;
  }
  return out.set("to", to).set("subject", J.str(subject)).set("body", J.str(body));
}

/**
 * Send a draft as the wrapper checked it: `to`, `subject` and `body` are the values it read with
 * get_draft and admitted, and they go out as the message sent with the draft's id (Gmail's
 * drafts.send takes the message to send), so an edit of the draft after the check changes
 * nothing. Without them nothing is sent: never the draft "as it is now".
 */
function sendDraft(args: J): J {
  const id = draftId(args);
  const raw = failed() ? "" : rawMessage(args);
  if (failed()) return new J();
  const draft = J.obj().set("id", J.str(id)).set("message", J.obj().set("raw", J.str(raw)));
  const message = call("POST", "/drafts/send", draft);
  return failed() ? new J() : messageIds(message);
}

function sendMessage(args: J): J {
  const raw = rawMessage(args);
  if (failed()) return new J();
  const message = call("POST", "/messages/send", J.obj().set("raw", J.str(raw)));
  return failed() ? new J() : messageIds(message);
}

/** The most messages one list_messages call reads: each is one more request to the mail API. */
const MAX_LISTED: i32 = 50;

/** A query parameter's value, percent-encoded as UTF-8: everything but A-Z a-z 0-9 - . _ ~ is escaped, so the URL is in the canonical form the host checks. */
function queryValue(value: string): string {
  const bytes = Uint8Array.wrap(String.UTF8.encode(value));
  const out = new ByteWriter();
  const hex = "0123456789ABCDEF";
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    const plain = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x2d || c == 0x2e || c == 0x5f || c == 0x7e;
    if (plain) out.byte(c);
    else {
      out.byte(0x25);
      out.byte(<u8>hex.charCodeAt(c >> 4));
      out.byte(<u8>hex.charCodeAt(c & 15));
    }
  }
  return String.UTF8.decodeUnsafe(out.dataStart(), out.length);
}

function maxResults(args: J): i32 {
  const m = args.get("max_results");
  if (m == null || m.kind == Kind.Null) return 10;
  if (m.kind != Kind.Num || m.n != Math.floor(m.n) || m.n < 1 || m.n > <f64>MAX_LISTED) {
    fail("connector_error", "input `max_results` must be a whole number from 1 to " + MAX_LISTED.toString());
    return 0;
  }
  return <i32>m.n;
}

/** What a listing shows of a message: its sender, subject and date headers and Gmail's snippet. */
function summary(message: J): J {
  const payload = message.get("payload");
  const headers = payload != null ? payload : J.obj();
  return messageIds(message)
    .set("from", J.str(header(headers, "From")))
    .set("subject", J.str(header(headers, "Subject")))
    .set("date", J.str(header(headers, "Date")))
    .set("snippet", str(message, "snippet"));
}

/**
 * The messages a Gmail search finds, newest first: messages.list gives only ids, so each one's
 * headers are read with messages.get in the metadata format.
 */
function listMessages(args: J): J {
  const q = stringArg(args, "q");
  const max = failed() ? 0 : maxResults(args);
  if (failed()) return new J();
  const listing = call("GET", "/messages?q=" + queryValue(q) + "&maxResults=" + max.toString(), null);
  if (failed()) return new J();
  const found = listing.get("messages");
  const out = J.arr();
  if (found != null && found.kind == Kind.Arr) {
    for (let i = 0; i < found.items.length && i < max; i++) {
      const id = found.items[i].getString("id");
      if (id == null || !isApiId(id)) return fail("external_api_error", "the mail API listed a message without a valid id", 200);
      const message = call("GET", "/messages/" + id + "?format=metadata&metadataHeaders=From&metadataHeaders=Subject&metadataHeaders=Date", null);
      if (failed()) return new J();
      out.push(summary(message));
    }
  }
  return J.obj().set("messages", out);
}

/** A message's headers and its plain-text body (attachments and html alternatives left out). */
function getMessage(args: J): J {
  const id = messageId(args);
  if (failed()) return new J();
  const message = call("GET", "/messages/" + id + "?format=full", null);
  if (failed()) return new J();
  const payload = message.get("payload");
  if (payload == null || payload.kind != Kind.Obj) return fail("external_api_error", "the mail API answered a message without a payload", 200);
  const body = plainText(payload, "message", false);
  if (body == null) return new J();
  return summary(message)
    .set("to", addressList(payload, "To"))
    .set("cc", addressList(payload, "Cc"))
    .set("body", J.str(body));
}

export function create_draft(): i32 { return run(createDraft); }
export function get_draft(): i32 { return run(getDraft); }
export function get_message(): i32 { return run(getMessage); }
export function list_messages(): i32 { return run(listMessages); }
export function send_draft(): i32 { return run(sendDraft); }
export function send_message(): i32 { return run(sendMessage); }
