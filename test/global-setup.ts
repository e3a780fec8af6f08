import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Every temp dir a test makes (mkdtemp under os.tmpdir()) lands in one folder per test run,
 * removed when the run ends: the workers inherit TMPDIR from this process.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "countersign-tests-"));
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true });
}
