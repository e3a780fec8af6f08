// `npm run demo`: the whole flow on this machine with nothing configured. It starts the authority
// (`countersign serve`, SQLite in a temp data directory) and the local Gmail-shaped provider on
// 127.0.0.1, then runs example programs through `countersign run` the way an agent would: one the
// policy approves (it runs at once), one it denies, and one that waits for a person. With a
// terminal it waits for you to approve that one in the browser (or with Enter here, for SSH
// users) and shows it finish; without one (CI) it stops after the pending step and withdraws the
// request. test/e2e/demo.test.ts runs it in a terminal and approves in a real browser.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startGmailServer, type GmailServer } from "../examples/gmail-server/gmail-server.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "bin", "countersign.js");
const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;

const home = mkdtempSync(join(tmpdir(), "countersign-demo-"));
const data = join(home, ".countersign");
// The demo's own HOME: `~` in the policy (~/Sandbox) is this folder, on any machine.
const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, COUNTERSIGN_HOME: data };
delete env.COUNTERSIGN_URL;
delete env.COUNTERSIGN_TOKEN;
delete env.COUNTERSIGN_DATABASE;

const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);
const say = (text = "") => process.stdout.write(text + "\n");
const indent = (text: string) =>
  text
    .replace(/\n$/, "")
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");

let gmail: GmailServer | undefined;
let serve: ChildProcess | undefined;

async function main(): Promise<number> {
  const token = `demo-${Math.random().toString(36).slice(2)}`;
  gmail = await startGmailServer({ token });
  mkdirSync(join(home, "Sandbox"), { recursive: true });
  mkdirSync(data, { recursive: true, mode: 0o700 });
  writeFileSync(join(data, "gmail-token"), token, { mode: 0o600 });
  writeFileSync(
    join(data, "connections.toml"),
    `# Written by the demo: mail goes to the local Gmail-shaped provider.\n[email]\naddress = "me@example.com"\nbase_url = "${gmail.url}"\ntoken_file = "${join(data, "gmail-token")}"\n\n[fs]\nroots = ["${join(home, "Sandbox")}"]\n`,
    { mode: 0o600 },
  );
  const url = await startServe();
  say(bold("countersign demo"));
  say(`  authority   ${url}  (SQLite in ${data})`);
  say(`  provider    ${gmail.url}  (Gmail-shaped, local: nothing leaves this machine)`);
  say(`  HOME        ${home}  (so ~/Sandbox in the policy is ${join(home, "Sandbox")})`);
  say();

  await step("1. A program the policy approves: it runs at once", "examples/remind-me.ts");
  showSent(0);
  await step("2. A program the policy denies: nothing runs", "examples/write-outside-sandbox.ts");
  say();
  return pending(url);
}

/** Run one example to its end and show what `countersign run` printed. */
async function step(title: string, example: string): Promise<void> {
  say(bold(title));
  say(`  $ countersign run ${example}`);
  const { code, stdout, stderr } = await collect(runExample(example));
  if (stdout !== "") say(indent(stdout));
  if (stderr !== "") say(indent(stderr));
  say(`    (exit ${code})`);
}

/** The third outcome: the policy asks. Show the review URL and a login link, then wait (TTY) or stop (CI). */
async function pending(url: string): Promise<number> {
  say(bold("3. A program the policy asks you about: it waits for your decision"));
  const example = "examples/notify-team.ts";
  say(`  $ countersign run ${example}`);
  const child = runExample(example);
  const output = collect(child, (line) => say(indent(line)));
  const reviewUrl = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stderr!.on("data", (d: Buffer) => {
      seen += d.toString();
      const match = /review: (\S+)/.exec(seen);
      if (match !== null) resolve(match[1]!);
    });
    child.once("exit", () => reject(new Error(`countersign run ended before it asked:\n${seen}`)));
  });
  const login = await cli(["ui", "--as", "you"]);
  say();
  say(`  review URL  ${reviewUrl}`);
  say(`  log in      ${login.trim()}   (works once, within 60 s)`);
  say();
  if (!interactive) {
    say("  No terminal: the demo stops here (in a terminal it waits for you to approve). Withdrawing the request.");
    child.kill("SIGINT");
    const { code } = await output;
    say(`    (exit ${code})`);
    return 0;
  }
  say(
    `  Approve it as the person: open the login link in your browser, then the review URL, and click "Approve once".`,
  );
  say(
    `  (No browser here, e.g. over SSH? Press Enter to approve once from this terminal, through the same approver API.)`,
  );
  say(`  (A new login link: HOME=${home} COUNTERSIGN_HOME=${data} npx countersign ui)`);
  const rl = createInterface({ input: process.stdin });
  rl.once(
    "line",
    () => void approveFromTerminal(url, reviewUrl).catch((err: Error) => say(`  could not approve: ${err.message}`)),
  );
  const { code } = await output;
  rl.close();
  say(`    (exit ${code})`);
  showSent(1);
  return code === 0 ? 0 : 1;
}

/** What a person does on the approval page, done with the approver API: log in with a fresh link, approve once. */
async function approveFromTerminal(url: string, reviewUrl: string): Promise<void> {
  const id = reviewUrl.split("/").pop()!;
  const link = (await cli(["ui", "--as", "you"])).trim();
  const login = await fetch(link, { redirect: "manual" });
  const cookies = login.headers.getSetCookie().map((c) => c.split(";")[0]!);
  const csrf = cookies.find((c) => c.startsWith("countersign_csrf="))?.split("=")[1];
  if (csrf === undefined) throw new Error(`login refused (HTTP ${login.status})`);
  const answer = await fetch(`${url}/v1/requests/${id}/decision`, {
    method: "POST",
    headers: { cookie: cookies.join("; "), "x-csrf-token": csrf, "content-type": "application/json", origin: url },
    body: JSON.stringify({ decision: "approved_once" }),
  });
  if (!answer.ok) throw new Error(`HTTP ${answer.status}: ${await answer.text()}`);
  say("    approved once, as you");
}

function showSent(from: number): void {
  for (const m of gmail!.sent.slice(from)) say(`    provider: sent "${m.subject}" to ${m.to.join(", ")}`);
  say();
}

function runExample(example: string): ChildProcess {
  return spawn(process.execPath, [BIN, "run", example], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
}

async function cli(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await collect(
    spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] }),
  );
  if (code !== 0) throw new Error(`countersign ${args.join(" ")} failed (${code}): ${stderr}`);
  return stdout;
}

/** A child's output and exit code; `live` sees each stdout line as it comes. */
function collect(
  child: ChildProcess,
  live?: (line: string) => void,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => {
    stdout += d.toString();
    if (live !== undefined) {
      const lines = stdout.split("\n");
      stdout = lines.pop()!;
      for (const line of lines) live(line);
    }
  });
  child.stderr!.on("data", (d: Buffer) => {
    const text = d.toString();
    stderr += text;
    if (live !== undefined)
      for (const line of text.split("\n"))
        if (line !== "" && !line.startsWith("waiting for") && !line.startsWith("review:")) live(line);
  });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code: code ?? 1, stdout, stderr })));
}

/** `countersign serve` on a free port, with its log kept out of the demo's output. */
async function startServe(): Promise<string> {
  serve = spawn(process.execPath, [BIN, "serve", "--port", "0", "--workers", "1"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  serve.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    serve!.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /countersign authority at (http:\/\/\S+)/.exec(out);
      if (match !== null) resolve(match[1]!);
    });
    serve!.once("exit", (code) => reject(new Error(`countersign serve exited (${code}):\n${err}`)));
  });
}

async function cleanUp(): Promise<void> {
  if (serve !== undefined && serve.exitCode === null) {
    const exited = new Promise((r) => serve!.once("exit", r));
    serve.kill("SIGTERM");
    await exited;
  }
  await gmail?.close();
  rmSync(home, { recursive: true, force: true });
}

let code = 1;
try {
  readFileSync(join(ROOT, "dist", "src", "cli", "bin.js")); // built by `npm ci` (prepare) or `npm run build`
  code = await main();
} catch (err) {
  process.stderr.write(`demo failed: ${(err as Error).message}\n`);
} finally {
  await cleanUp();
}
process.exit(code);
