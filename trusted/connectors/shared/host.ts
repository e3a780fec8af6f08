// Host functions countersign provides in "extism:host/user". Each takes a JSON request and
// answers `{ ok: true, ... }` or `{ ok: false, error: { class, message } }`; the host enforces
// every allowlist and keeps the credential, so a connector only says what it wants.
import { loadBlock, storeBlock } from "./kernel";
import { J, Kind, parse } from "./json";
import { fail } from "./plugin";

@external("extism:host/user", "http_request") declare function host_http_request(req: i64): i64;
@external("extism:host/user", "fs_read") declare function host_fs_read(req: i64): i64;
@external("extism:host/user", "fs_list") declare function host_fs_list(req: i64): i64;
@external("extism:host/user", "fs_write") declare function host_fs_write(req: i64): i64;
@external("extism:host/user", "fs_missing_dirs") declare function host_fs_missing_dirs(req: i64): i64;
@external("extism:host/user", "fs_mkdir") declare function host_fs_mkdir(req: i64): i64;

/** The answer when the host said ok, otherwise null with the host's error recorded. */
function answer(offset: i64): J | null {
  const a = parse(loadBlock(offset));
  if (a == null || a.kind != Kind.Obj) {
    fail("connector_error", "host answer is not a JSON object");
    return null;
  }
  const ok = a.get("ok");
  if (ok != null && ok.kind == Kind.Bool && ok.b) return a;
  const e = a.get("error");
  const cls = e != null ? e.getString("class") : null;
  const msg = e != null ? e.getString("message") : null;
  fail(cls != null ? cls : "connector_error", msg != null ? msg : "host function failed");
  return null;
}

/** The request as a kernel block. */
function request(req: J): i64 {
  const text = req.toBytes();
  return storeBlock(text.dataStart(), text.length);
}

/** `{ method, url, headers?, body? }` → `{ status, headers, body }`; a relative url uses the connection's base_url. */
export function httpRequest(req: J): J | null {
  return answer(host_http_request(request(req)));
}

/** `{ path }` → `{ content }`. */
export function fsRead(req: J): J | null {
  return answer(host_fs_read(request(req)));
}

/** `{ path }` → `{ entries: [{ name, type }] }`. */
export function fsList(req: J): J | null {
  return answer(host_fs_list(request(req)));
}

/** `{ path, content }` → `{ bytes }`; makes the file's missing folders first. */
export function fsWrite(req: J): J | null {
  return answer(host_fs_write(request(req)));
}

/** `{ path, of: "file" | "dir" }` → `{ dirs }`: the folders a write of that file or a make_dir of that folder would make. Changes nothing. */
export function fsMissingDirs(req: J): J | null {
  return answer(host_fs_missing_dirs(request(req)));
}

/** `{ path }` → `{}`: makes the folder and the missing ones on its way. */
export function fsMkdir(req: J): J | null {
  return answer(host_fs_mkdir(request(req)));
}
