// `countersign run` end to end: an auto-approved program that sends one mail, through a real
// authority (SQLite) and the Gmail-shaped provider on loopback. In process: the whole use case
// next to its parts (check and submit at the authority), with a plugin pool per run as the CLI
// does and with one shared pool as a long-lived caller (the MCP server) would. As processes: the
// `run` command next to `check` of the same program through the same authority.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startGmailServer } from "../examples/gmail-server/gmail-server.js";
import { localContext, runAgentProgram } from "../src/app/index.js";
import { startAuthority } from "../src/authority/index.js";
import { httpAuthority } from "../src/cli/http-authority.js";
import { connectorContext } from "../src/config/index.js";
import { createPluginPool } from "../src/connector/index.js";
import { packageRoot } from "../src/model/paths.js";
import { openStore } from "../src/store/index.js";
import { measure, table, writeSection } from "./report.js";

const BIN = join(packageRoot, "bin", "countersign.js");
const SOURCE = readFileSync(join(packageRoot, "examples", "remind-me.ts"), "utf8");
const ms = (x: number) => `${x.toFixed(1)} ms`;

const home = mkdtempSync(join(tmpdir(), "countersign-bench-run-"));
const data = join(home, ".countersign");
const gmail = await startGmailServer({ token: "bench" });
const store = await openStore({ dataDir: data });
const authority = await startAuthority({ dataDir: data, home, store, port: 0, poolSize: 1, log: () => undefined });
writeFileSync(join(data, "gmail-token"), "bench", { mode: 0o600 });
writeFileSync(
  join(data, "connections.toml"),
  `[email]\nbase_url = "${gmail.url}"\ntoken_file = "${join(data, "gmail-token")}"\n`,
);
const env = { ...process.env, HOME: home, COUNTERSIGN_HOME: data };
const client = httpAuthority({ url: authority.url, token: readFileSync(join(data, "submitter.token"), "utf8").trim() });
const ctx = localContext(env);
const program = { program: SOURCE, source_name: "remind-me.ts" };

async function runOnce(connectors?: ReturnType<typeof connectorContext>): Promise<void> {
  const report = await runAgentProgram(
    ctx,
    { source: SOURCE, entry: "remind-me.ts" },
    { client, ...(connectors === undefined ? {} : { connectors }) },
  );
  if (report.outcome !== "executed")
    throw new Error(`run ended ${report.outcome}: ${JSON.stringify(report.error ?? report.execution)}`);
}

await runOnce(); // warm: the authority's analyzer, the transpiler, the plugin's compiled module
const check = await measure(() => client.check(program), { samples: 9 });
const submit = await measure(() => client.submit(program), { samples: 9 });
const perRunPool = await measure(() => runOnce(), { samples: 9 });
const plugins = createPluginPool();
const shared = connectorContext(data, { plugins });
await runOnce(shared);
const sharedPool = await measure(() => runOnce(shared), { samples: 9 });
await plugins.close();

// Asynchronously: the authority answering these processes runs in this one.
const exec = promisify(execFile);
const cli = (args: string[]) => () => exec(process.execPath, [BIN, ...args], { env, cwd: packageRoot });
const checkProcess = await measure(cli(["check", "examples/remind-me.ts"]), { samples: 3 });
const runProcess = await measure(cli(["run", "examples/remind-me.ts"]), { samples: 3 });

await ctx.close();
await authority.close();
await gmail.close();

const body = `${table([
  ["what", "wall (median)"],
  ["baseline: POST /v1/check at the authority (warm analyzer)", ms(check)],
  ["baseline: POST /v1/requests at the authority (analysis cached, decided, receipt signed)", ms(submit)],
  ["runAgentProgram, plugin pool per run (as `countersign run` does)", ms(perRunPool)],
  ["runAgentProgram, one shared plugin pool (a long-lived caller)", ms(sharedPool)],
  ["  the runner's own part with a shared pool (verify + redeem + sandbox + 1 mail)", ms(sharedPool - check - submit)],
  ["baseline: `countersign check` as a process, through the authority", ms(checkProcess)],
  ["`countersign run` as a process (check, submit, redeem, run, 1 mail)", ms(runProcess)],
])}

An auto-approved program (examples/remind-me.ts) sending one mail to the Gmail-shaped provider on
loopback; every run is a new request with its own receipt, redeemed once. A run with a plugin pool
of its own pays for starting the email plugin's worker; the command does that once per process.
1-minute load average ${loadavg()[0]!.toFixed(1)} when the run ended (the machine is shared).`;
writeSection("run", "countersign run (end to end)", body);
process.stdout.write(body + "\n");
process.exit(0);
