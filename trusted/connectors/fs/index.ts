// The fs connector: read, list and write files, make folders. Every path goes to the host's scoped
// file functions, which resolve real paths and check them against the user's roots. Paths, contents
// and listings are passed on as the JSON they came as, never decoded. A write or a make_dir first
// asks which folders are missing (a question that changes nothing): those are the folders it
// reports as made, since the host makes the change itself once the call has ended.
import { J } from "../shared/json";
import { failed, run, stringValue } from "../shared/plugin";
import { fsList, fsMissingDirs, fsMkdir, fsRead, fsWrite } from "../shared/host";

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

function missingDirs(path: J, kind: string): J | null {
  const m = fsMissingDirs(J.obj().set("path", path).set("of", J.str(kind)));
  return m == null ? null : field(m, "dirs");
}

function writeFile(args: J): J {
  const path = stringValue(args, "path");
  const content = stringValue(args, "content");
  if (failed()) return new J();
  const dirs = missingDirs(path, "file");
  if (dirs == null) return new J();
  const a = fsWrite(J.obj().set("path", path).set("content", content));
  if (a == null) return new J();
  return J.obj().set("path", path).set("bytes", field(a, "bytes")).set("made_dirs", dirs);
}

function makeDir(args: J): J {
  const path = stringValue(args, "path");
  if (failed()) return new J();
  const dirs = missingDirs(path, "dir");
  if (dirs == null) return new J();
  const a = fsMkdir(J.obj().set("path", path));
  if (a == null) return new J();
  // When the folder itself was missing it is the last of those made.
  return J.obj().set("path", path).set("made", J.bool(dirs.items.length > 0)).set("made_dirs", dirs);
}

export function read_file(): i32 { return run(readFile); }
export function list_dir(): i32 { return run(listDir); }
export function write_file(): i32 { return run(writeFile); }
export function make_dir(): i32 { return run(makeDir); }
