import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Every temp dir a test makes (mkdtemp under os.tmpdir()) lands in one folder per test run,
 * removed when the run ends: the workers, and the processes they start, inherit TMPDIR from this
 * process. HOME and COUNTERSIGN_HOME point into that folder too, so that no test can read or
 * write the real ~/.countersign, even through a default.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "countersign-tests-"));
  const home = join(root, "home");
  mkdirSync(home);
  process.env.TMPDIR = root;
  process.env.HOME = home;
  process.env.COUNTERSIGN_HOME = join(home, ".countersign");
  return () => rmSync(root, { recursive: true, force: true });
}
