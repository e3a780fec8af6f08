// The fs connector: read, list and write files. Every path goes to the host's scoped file
// functions, which resolve real paths and check them against the user's roots.
import { J } from "../shared/json";
import { failed, run, stringArg } from "../shared/plugin";
import { fsList, fsRead, fsWrite } from "../shared/host";

function field(a: J, key: string): J {
  const v = a.get(key);
  return v != null ? v : new J();
}

function readFile(args: J): J {
  const path = stringArg(args, "path");
  if (failed()) return new J();
  const a = fsRead(J.obj().set("path", J.str(path)));
  if (a == null) return new J();
  return J.obj().set("path", J.str(path)).set("content", field(a, "content"));
}

function listDir(args: J): J {
  const path = stringArg(args, "path");
  if (failed()) return new J();
  const a = fsList(J.obj().set("path", J.str(path)));
  if (a == null) return new J();
  return J.obj().set("path", J.str(path)).set("entries", field(a, "entries"));
}

function writeFile(args: J): J {
  const path = stringArg(args, "path");
  const content = stringArg(args, "content");
  if (failed()) return new J();
  const a = fsWrite(J.obj().set("path", J.str(path)).set("content", J.str(content)));
  if (a == null) return new J();
  return J.obj().set("path", J.str(path)).set("bytes", field(a, "bytes"));
}

export function read_file(): i32 { return run(readFile); }
export function list_dir(): i32 { return run(listDir); }
export function write_file(): i32 { return run(writeFile); }
