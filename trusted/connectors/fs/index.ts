// The fs connector: read, list and write files. Every path goes to the host's scoped file
// functions, which resolve real paths and check them against the user's roots. Paths, contents
// and listings are passed on as the JSON they came as, never decoded.
import { J } from "../shared/json";
import { failed, run, stringValue } from "../shared/plugin";
import { fsList, fsRead, fsWrite } from "../shared/host";

function field(a: J, key: string): J {
  const v = a.get(key);
  return v != null ? v : new J();
}

function readFile(args: J): J {
  const path = stringValue(args, "path");
  if (failed()) return new J();
  const a = fsRead(J.obj().set("path", path));
  if (a == null) return new J();
  return J.obj().set("path", path).set("content", field(a, "content"));
}

function listDir(args: J): J {
  const path = stringValue(args, "path");
  if (failed()) return new J();
  const a = fsList(J.obj().set("path", path));
  if (a == null) return new J();
  return J.obj().set("path", path).set("entries", field(a, "entries"));
}

function writeFile(args: J): J {
  const path = stringValue(args, "path");
  const content = stringValue(args, "content");
  if (failed()) return new J();
  const a = fsWrite(J.obj().set("path", path).set("content", content));
  if (a == null) return new J();
  return J.obj().set("path", path).set("bytes", field(a, "bytes"));
}

export function read_file(): i32 { return run(readFile); }
export function list_dir(): i32 { return run(listDir); }
export function write_file(): i32 { return run(writeFile); }
