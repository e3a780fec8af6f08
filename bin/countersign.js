#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm ci` / `npm run build` (the prepare script).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const main = new URL("../dist/src/cli/bin.js", import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write("countersign is not built yet: run `npm run build` in the package directory.\n");
  process.exit(2);
}
await import(main.href);
