// The pool's plugin worker: a call waits on the host's async host functions, a deadline stops the
// plugin even while a host function is still running, and an idle pool lets the process exit.
import { execFileSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { connectorContext } from "../../src/config/index.js";
import { createPluginPool } from "../../src/connector/plugin-pool.js";
import { packageRoot } from "../../src/model/paths.js";
import { dataDirWith, runAction, shippedManifests, tempDir } from "./fixtures.js";

const set = shippedManifests();
let server: Server;
let url: string;
let aborted = 0;

beforeAll(async () => {
  // Answers /slow after 150 ms and never answers /hang; counts requests whose client went away.
  server = createServer((req, res) => {
    req.on("close", () => {
      if (!res.writableEnded) aborted++;
    });
    if (req.url === "/slow")
      setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end('{"late":true}'), 150);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const ctxWith = (timeoutMs: number) =>
  connectorContext(dataDirWith(`[http]\nhosts = ["${url.slice(7)}"]\n`), {
    plugins: createPluginPool(),
    limits: { timeoutMs },
  });

describe("a plugin call in its worker", () => {
  it("waits while the host answers a host function asynchronously", async () => {
    const ctx = ctxWith(5_000);
    const answer = await runAction(set, "http.get", { url: `${url}/slow` }, ctx);
    expect(answer).toMatchObject({ status: 200 });
    expect(JSON.stringify(answer)).toContain("late");
    await ctx.plugins!.close();
  });

  it("stops at the deadline while a host function still runs, aborts it, and serves the next call", async () => {
    const ctx = ctxWith(300);
    // /hang never answers: only the deadline can end the call.
    await expect(runAction(set, "http.get", { url: `${url}/hang` }, ctx)).rejects.toMatchObject({
      class: "resource_limit_exceeded",
      details: { timeout_ms: 300 },
    });
    await vi.waitFor(() => expect(aborted).toBeGreaterThanOrEqual(1), { timeout: 20_000 });
    const next = await runAction(
      set,
      "http.get",
      { url: `${url}/slow` },
      { ...ctx, limits: { ...ctx.limits, timeoutMs: 5_000 } },
    );
    expect(next).toMatchObject({ status: 200 });
    await ctx.plugins!.close();
  });
});

describe("an idle pool", () => {
  it("does not keep the process alive", () => {
    const root = tempDir();
    const data = tempDir("cs-home-"); // beside the root: a root may not hold countersign's own files
    writeFileSync(join(root, "note.txt"), "");
    const script = `
      import { connectorContext } from ${JSON.stringify(join(packageRoot, "src/config/index.ts"))};
      import { executeAction } from ${JSON.stringify(join(packageRoot, "src/connector/execute-action.ts"))};
      import { admitPreview } from ${JSON.stringify(join(packageRoot, "src/connector/admission.ts"))};
      import { createPluginPool } from ${JSON.stringify(join(packageRoot, "src/connector/plugin-pool.ts"))};
      import { loadManifests } from ${JSON.stringify(join(packageRoot, "src/config/index.ts"))};
      import { writeFileSync } from "node:fs";
      writeFileSync(${JSON.stringify(join(data, "connections.toml"))}, ${JSON.stringify(`[fs]\nroots = ["${root}"]\n`)});
      const set = loadManifests(${JSON.stringify(join(packageRoot, "manifests"))});
      const out = await executeAction(set, admitPreview(set, "fs.list_dir", { path: ${JSON.stringify(root)} }), connectorContext(${JSON.stringify(data)}, { plugins: createPluginPool() }));
      console.log(JSON.stringify(out.entries.map((e) => e.name)));
    `;
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 30_000,
      cwd: packageRoot,
    });
    expect(out.trim()).toBe('["note.txt"]');
  });
});

describe("the channel to a plugin worker", () => {
  it("grows for a message larger than its first 64 KiB, both ways, and the text arrives intact", async () => {
    const root = tempDir();
    const content = "é😀x".repeat(100_000); // 800 KB as UTF-8, multi-byte characters across every boundary
    writeFileSync(join(root, "big.txt"), content);
    const ctx = connectorContext(dataDirWith(`[fs]\nroots = ["${root}"]\n`), { plugins: createPluginPool() });
    expect(await runAction(set, "fs.write_file", { path: join(root, "copy.txt"), content }, ctx)).toMatchObject({
      bytes: Buffer.byteLength(content),
    });
    expect(readFileSync(join(root, "copy.txt"), "utf8")).toBe(content);
    expect(await runAction(set, "fs.read_file", { path: join(root, "big.txt") }, ctx)).toEqual({
      path: join(root, "big.txt"),
      content,
    });
    await ctx.plugins!.close();
  });
});

describe("the plugin thread's module", () => {
  it("loads only the channel and Node's modules (the model's index would add a second to every thread's start)", () => {
    const imports = (file: string) =>
      [
        ...readFileSync(join(packageRoot, "src/connector", file), "utf8").matchAll(
          /^import (?!type )[^;]*? from "([^"]+)";$/gm,
        ),
      ].map((m) => m[1]);
    expect(imports("plugin-thread.ts")).toEqual(["node:module", "node:worker_threads", "./plugin-channel.js"]);
    expect(imports("plugin-channel.ts")).toEqual([]);
  });
});
