// docs/connectors.md, step by step: the webhook connector of examples/webhook-connector is built
// with the project's build, pinned, installed in the user's own manifests/ folder next to copies
// of the shipped ones, checked with `countersign manifests check`, called through the connector
// host against a local webhook, and decided by the shipped policy.
import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWasm } from "../../scripts/build-connectors.mjs";
import { createAnalyzer } from "../../src/analyze/index.js";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { connectorContext, loadManifests, loadPolicy } from "../../src/config/index.js";
import { createPluginPool } from "../../src/connector/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { decide } from "../../src/policy/index.js";
import { dataDirWith, runAction } from "./fixtures.js";

const EXAMPLE = join(packageRoot, "examples", "webhook-connector");

interface Posted {
  method: string;
  url: string;
  contentType: string;
  body: string;
}

const posted: Posted[] = [];
const webhook = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    posted.push({
      method: req.method ?? "",
      url: req.url ?? "",
      contentType: req.headers["content-type"] ?? "",
      body: Buffer.concat(chunks).toString("utf8"),
    });
    res.writeHead(req.url === "/hooks/archived" ? 410 : 200, { "content-type": "text/plain" }).end("ok");
  });
});
let webhookUrl = "";
const pool = createPluginPool();
beforeAll(async () => {
  await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));
  webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await pool.close();
  await new Promise<void>((resolve) => webhook.close(() => resolve()));
});

async function cli(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    readStdin: async () => "",
    env,
    cwd: packageRoot,
  };
  const code = await main(argv, io);
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** Step 1 of the guide: the user's own manifests/ folder holds the shipped manifests, their wasm pointed at the installed files. */
function ownManifests(home: string): string {
  const dir = join(home, "manifests");
  cpSync(join(packageRoot, "manifests"), dir, { recursive: true });
  for (const name of readdirSync(dir)) {
    const file = join(dir, name, "connector.toml");
    const text = readFileSync(file, "utf8");
    writeFileSync(
      file,
      text.replace(
        /^wasm = "\.\.\/\.\.\/trusted\/connectors\/(\w+)\.wasm"$/m,
        (_, n: string) => `wasm = ${JSON.stringify(join(packageRoot, "trusted", "connectors", `${n}.wasm`))}`,
      ),
    );
  }
  return dir;
}

describe("writing a connector, as docs/connectors.md says", () => {
  const home = dataDirWith("");
  const env = { HOME: home, COUNTERSIGN_HOME: home };
  const dir = ownManifests(home);

  it("builds to the pinned hash, installs, and passes `countersign manifests check`", async () => {
    // Steps 2-3: the connector's manifests next to the others, its wasm built into that folder.
    cpSync(join(EXAMPLE, "manifests", "webhook"), join(dir, "webhook"), { recursive: true });
    const hash = await buildWasm(join(EXAMPLE, "index.ts"), join(dir, "webhook", "webhook.wasm"));
    const pin = /^sha256 = "([0-9a-f]{64})"$/m.exec(readFileSync(join(dir, "webhook", "connector.toml"), "utf8"))?.[1];
    expect(hash, "examples/webhook-connector: rebuild and pin the hash the build printed").toBe(pin);

    // Step 4: the check the user runs.
    const checked = await cli(["manifests", "check"], env);
    const shipped = loadManifests(join(packageRoot, "manifests"));
    expect(checked).toEqual({
      code: 0,
      stdout: `manifests ok: ${shipped.connectors.size + 1} connectors, ${shipped.actions.size + 1} actions in ${dir}\n`,
      stderr: "",
    });
    const api = await cli(["api", "--module", "trusted/webhook"], env);
    expect(api.stdout).toContain(
      "  export function notify(args: {\n    /** The channel: lower-case letters, digits or -. */\n    channel: string;",
    );
  }, 60_000);

  it("refuses the folder once the wasm changes after pinning", async () => {
    const wasm = join(dir, "webhook", "webhook.wasm");
    const bytes = readFileSync(wasm);
    writeFileSync(wasm, Buffer.concat([bytes, Buffer.from([0])]));
    try {
      const checked = await cli(["manifests", "check"], env);
      expect(checked.code).toBe(2);
      expect(checked.stdout + checked.stderr).toMatch(/webhook\/connector\.toml.*sha256/);
    } finally {
      writeFileSync(wasm, bytes);
    }
  });

  it("posts through the connector host to the connection's base_url, and only there", async () => {
    // Step 5: the connection, then the action as the wrapper runs it.
    writeFileSync(join(home, "connections.toml"), `[webhook]\nbase_url = "${webhookUrl}"\n`);
    const set = loadManifests(dir);
    const ctx = connectorContext(home, { plugins: pool });
    const result = await runAction(
      set,
      "webhook.notify",
      { channel: "general", text: 'Build 42 is green ✓ "quoted"' },
      ctx,
    );
    expect(result).toEqual({ status: 200 });
    expect(posted).toEqual([
      {
        method: "POST",
        url: "/hooks/general",
        contentType: "application/json",
        body: '{"text":"Build 42 is green ✓ \\"quoted\\""}',
      },
    ]);

    // Bad input is refused before anything is sent; a failing webhook is the provider's error.
    for (const channel of ["../admin", "General", "", "a/b"]) {
      await expect(runAction(set, "webhook.notify", { channel, text: "x" }, ctx), channel).rejects.toMatchObject({
        class: "connector_error",
      });
    }
    expect(posted).toHaveLength(1);
    await expect(runAction(set, "webhook.notify", { channel: "archived", text: "x" }, ctx)).rejects.toMatchObject({
      class: "external_api_error",
      details: { status: 410 },
    });
  });

  it("is decided by the policy like any action: approval required, so the shipped policy asks", () => {
    const set = loadManifests(dir);
    const analyzer = createAnalyzer(set);
    try {
      const source = `import { program } from "countersign";\nimport { notify } from "trusted/webhook";\nexport default program({ rationale: "Tell the team.", async main() { await notify({ channel: "general", text: "Deployed." }); } });\n`;
      const facts = analyzer.analyze(source, { entry: "main.ts" });
      expect(facts.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(facts.effects.map((e) => e.op)).toEqual(["webhook.notify"]);
      const policy = loadPolicy(join(packageRoot, "policies"), { manifests: set, home, ownAddresses: [] });
      expect(decide(facts, policy, set).kind).toBe("ask");
    } finally {
      analyzer.dispose();
    }
  });
});
