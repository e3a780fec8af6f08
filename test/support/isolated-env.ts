import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * An environment for one CLI run of a test: its own home and data directory, both in a fresh temp
 * folder, so that defaults never reach the real ~/.countersign. `extra` overrides either.
 */
export function isolatedEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), "countersign-home-"));
  mkdirSync(join(home, ".countersign"));
  return { HOME: home, COUNTERSIGN_HOME: join(home, ".countersign"), ...extra };
}
