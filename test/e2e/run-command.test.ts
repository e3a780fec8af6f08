// `countersign run` as an agent runs it: a real `countersign serve` process, `run` processes from
// the sources, the Gmail-shaped provider and files on loopback and in a temp HOME. Every example
// program goes through with the exit code and the output lines it must give.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import { makeLoginLink } from "../../src/app/index.js";
import { callServe, loginServe, startServe, type ServeProcess } from "../authority/serve-process.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "src", "cli", "bin.ts");
const GMAIL_TOKEN = "e2e-run-token";
// Each test starts one to three CLI processes from the sources; on a loaded machine one takes tens of seconds.
const SLOW = 180_000;

let home: string;
let data: string;
let env: NodeJS.ProcessEnv;
let serve: ServeProcess;
let gmail: GmailServer;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "countersign-run-e2e-"));
  data = join(home, ".countersign");
  mkdirSync(join(home, "Sandbox", "notes"), { recursive: true });
  mkdirSync(join(home, "Sandbox", "reports"));
  mkdirSync(join(home, "Sandbox", "logs"));
  for (const day of ["monday", "tuesday"]) writeFileSync(join(home, "Sandbox", "notes", `${day}.md`), `- ${day}\n`);
  writeFileSync(join(home, "Sandbox", "notes", "week.md"), "- shipped run\nnot a bullet\n- wrote the demo\n");
  mkdirSync(data, { mode: 0o700 });
  gmail = await startGmailServer({ token: GMAIL_TOKEN });
  writeFileSync(join(data, "gmail-token"), GMAIL_TOKEN, { mode: 0o600 });
  writeFileSync(
    join(data, "connections.toml"),
    `[email]\naddress = "me@example.com"\nbase_url = "${gmail.url}"\ntoken_file = "${join(data, "gmail-token")}"\n\n[fs]\nroots = ["${join(home, "Sandbox")}"]\n`,
  );
  env = { HOME: home, COUNTERSIGN_HOME: data, COUNTERSIGN_URL: "", COUNTERSIGN_TOKEN: "", COUNTERSIGN_DATABASE: "" };
  serve = await startServe(env);
});

afterAll(async () => {
  await serve?.stop();
  await gmail?.close();
  rmSync(home, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** An example as the agent would write it on this machine: its /home/user paths are this test's HOME. */
function example(name: string): string {
  const file = join(home, name);
  writeFileSync(file, readFileSync(join(ROOT, "examples", name), "utf8").replaceAll("/home/user", home));
  return file;
}

function start(
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
  stdin?: string,
): { child: ChildProcess; done: Promise<Ran>; stderr: () => string } {
  const child = spawn(process.execPath, ["--import", "tsx", BIN, "run", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, ...extraEnv },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdin!.end(stdin ?? "");
  const done = new Promise<Ran>((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
  return { child, done, stderr: () => stderr };
}

const run = (args: string[], extraEnv: NodeJS.ProcessEnv = {}, stdin?: string) => start(args, extraEnv, stdin).done;

/** The request id once the run printed its review URL. */
async function reviewed(stderr: () => string): Promise<string> {
  for (;;) {
    const match = /review: \S+\/requests\/(req_[A-Za-z0-9_-]+)/.exec(stderr());
    if (match !== null) return match[1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function decide(id: string, body: Record<string, string>): Promise<void> {
  const session = await loginServe(serve.url, makeLoginLink({ dataDir: data, now: () => new Date() }, "alice"));
  const answer = await callServe(serve.url, "POST", `/v1/requests/${id}/decision`, { ...session, body });
  expect(answer.status).toBe(200);
}

/** Run a program the policy asks about, and decide it as the person once it waits. */
async function runAsked(args: string[], decision: Record<string, string>): Promise<Ran> {
  const running = start(args);
  await decide(await reviewed(running.stderr), decision);
  return running.done;
}

const lines = (text: string) => text.trimEnd().split("\n");
const JTI = "[A-Za-z0-9_-]{22}";

describe("countersign run, each example program", () => {
  it(
    "remind-me.ts: auto-approved, executed, the provider has the mail",
    async () => {
      const before = gmail.sent.length;
      const r = await run([example("remind-me.ts")]);
      expect(r.code).toBe(0);
      const out = lines(r.stdout);
      expect(out.slice(0, 2)).toEqual([
        "check: 1 effect, 2 guarantees (2 proven, 0 enforced at run time)",
        "policy: auto_approved (email.to-myself)",
      ]);
      expect(out[2]).toMatch(new RegExp(`^approval: auto_approved receipt=${JTI} \\(expires in (29[0-9]|300) s\\)$`));
      expect(out.slice(3)).toEqual(["executed: main (1 trusted call)", "null"]);
      expect(gmail.sent.slice(before).map((m) => m.to)).toEqual([["me@example.com"]]);
      expect(r.stderr).toBe(""); // nothing else: no warning from the plugin's worker either
    },
    SLOW,
  );

  it(
    "write-outside-sandbox.ts and fetch-and-post.ts: hard denied, exit 3 with the reason, nothing runs",
    async () => {
      const denied = await run([example("write-outside-sandbox.ts")]);
      expect(denied.code).toBe(3);
      expect(lines(denied.stdout)).toEqual([
        "check: 1 effect, 0 guarantees (0 proven, 0 enforced at run time)",
        "policy: auto_rejected (fs.write-outside-sandbox)",
      ]);
      expect(denied.stderr).toContain("files may only be written inside ~/Sandbox");
      const hosts = await run([example("fetch-and-post.ts")]);
      expect(hosts.code).toBe(3);
      expect(lines(hosts.stdout)[1]).toBe("policy: auto_rejected (http.unlisted-host)");
    },
    SLOW,
  );

  it(
    "refuted.ts: refused by the analysis, exit 1 with the diagnostic",
    async () => {
      const r = await run([example("refuted.ts")]);
      expect(r.code).toBe(1);
      expect(lines(r.stdout)).toEqual(["check: 2 effects, 1 guarantee (0 proven, 0 enforced at run time)"]);
      expect(r.stderr).toMatch(/^\d+:\d+: refuted writesUnder\("[^"]+\/Sandbox\/reports"\): /m);
    },
    SLOW,
  );

  it(
    "read-notes.ts: auto-approved; the reads run, the HTTP host is not reachable from here: exit 6 with the connector's error",
    async () => {
      const r = await run([example("read-notes.ts")]);
      expect(lines(r.stdout).slice(0, 2)).toEqual([
        "check: 3 effects, 3 guarantees (3 proven, 0 enforced at run time)",
        "policy: auto_approved (fs.list, fs.read, http.get-listed)",
      ]);
      expect(lines(r.stdout)[3]).toBe("executed: main (4 trusted calls)");
      expect(r.stderr).toMatch(/http\.get failed: (config_error|network_error|capability_denied|connector_error)/);
      expect(r.code).toBe(6);
    },
    SLOW,
  );

  it(
    "notify-team.ts: asks, prints the review URL, and runs once the person approves",
    async () => {
      const before = gmail.sent.length;
      const r = await runAsked([example("notify-team.ts")], { decision: "approved_once" });
      expect(r.code).toBe(0);
      const out = lines(r.stdout);
      expect(out.slice(0, 2)).toEqual([
        "check: 1 effect, 3 guarantees (3 proven, 0 enforced at run time)",
        "policy: ask (default)",
      ]);
      expect(out[2]).toMatch(new RegExp(`^approval: approved_once receipt=${JTI} \\(expires in \\d+ s\\)$`));
      expect(out.slice(3)).toEqual(["executed: main (1 trusted call)", "null"]);
      expect(r.stderr).toMatch(/^review: http:\/\/127\.0\.0\.1:\d+\/requests\/req_/m);
      expect(r.stderr).toMatch(/^waiting for approval: 0:\d\d elapsed$/m);
      expect(gmail.sent.slice(before).map((m) => m.to)).toEqual([["alice@example.com", "bob@example.com"]]);
    },
    SLOW,
  );

  it(
    "weekly-report.ts: asks, then reads the notes and writes the report inside ~/Sandbox",
    async () => {
      const r = await runAsked([example("weekly-report.ts")], { decision: "approved_once" });
      expect(r.code).toBe(0);
      expect(lines(r.stdout)[3]).toBe("executed: main (2 trusted calls)");
      expect(readFileSync(join(home, "Sandbox", "reports", "weekly.md"), "utf8")).toBe(
        "# Weekly report\n\n- shipped run\n- wrote the demo",
      );
    },
    SLOW,
  );

  it(
    "team-digest.ts: asks, then sends three digests and writes the log",
    async () => {
      const before = gmail.sent.length;
      const r = await runAsked([example("team-digest.ts")], { decision: "approved_once" });
      expect(r.code).toBe(0);
      expect(lines(r.stdout)[3]).toBe("executed: main (4 trusted calls)");
      expect(
        gmail.sent
          .slice(before)
          .map((m) => m.to[0])
          .sort(),
      ).toEqual(["alice@example.com", "bob@example.com", "carol@example.com"]);
      expect(readFileSync(join(home, "Sandbox", "logs", "digest.log"), "utf8")).toBe("sent 3 digests");
    },
    SLOW,
  );

  // recipientsOnly on send_draft is checked on the draft's recipients, which the wrapper reads
  // before the send: the draft to Bob is made and sent.
  it(
    "draft-and-send.ts: asks; once approved the draft is made, its recipients checked, and it is sent: exit 0",
    async () => {
      const before = gmail.sent.length;
      const r = await runAsked([example("draft-and-send.ts")], { decision: "approved_once" });
      expect(lines(r.stdout)[3]).toBe("executed: main (2 trusted calls)");
      expect(r.code).toBe(0);
      expect(gmail.sent.slice(before).map((m) => [m.via, m.to, m.subject])).toEqual([
        ["draft", ["bob@example.com"], "Meeting notes"],
      ]);
    },
    SLOW,
  );
});

describe("countersign run, how it ends", () => {
  const toCarol = `import { program } from "countersign";
import { sendEmail } from "trusted/email";

export default program({
  rationale: "Mail Carol.",
  guarantees: [],
  async main() {
    await sendEmail({ to: ["carol@example.com"], subject: "Hi", body: "Hello." });
  },
});
`;

  it(
    "a program read from stdin, rejected by the person: exit 3 with the reason",
    async () => {
      const running = start(["-"], {}, toCarol);
      await decide(await reviewed(running.stderr), { decision: "rejected", reason: "not today" });
      const r = await running.done;
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/^reason: not today$/m);
    },
    SLOW,
  );

  it(
    "request_more: exit 4 with the person's feedback on stderr",
    async () => {
      const running = start(["-"], {}, toCarol);
      await decide(await reviewed(running.stderr), { decision: "request_more", feedback: "say what it is about" });
      const r = await running.done;
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/^changes requested: say what it is about$/m);
    },
    SLOW,
  );

  it(
    "--timeout: exit 5 once it passes, the request withdrawn",
    async () => {
      const r = await run(["-", "--timeout", "1"], {}, toCarol);
      expect(r.code).toBe(5);
      expect(r.stderr).toMatch(/^expired: /m);
    },
    SLOW,
  );

  it(
    "Ctrl-C while waiting: the request is withdrawn, exit 130",
    async () => {
      const running = start(["-"], {}, toCarol);
      const id = await reviewed(running.stderr);
      running.child.kill("SIGINT");
      const r = await running.done;
      expect(r.code).toBe(130);
      const session = await loginServe(serve.url, makeLoginLink({ dataDir: data, now: () => new Date() }, "alice"));
      expect((await callServe(serve.url, "GET", `/v1/requests/${id}`, session)).body.status).toBe("withdrawn");
    },
    SLOW,
  );

  it(
    "--json: one object with every step and the exit code",
    async () => {
      const r = await run([example("remind-me.ts"), "--json"]);
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(report).toMatchObject({
        outcome: "executed",
        exit_code: 0,
        check: { ok: true, effects: 1, guarantees: 2, proven: 2, enforced: 0 },
        policy: { decision: "auto_approved", rules: ["email.to-myself"] },
        approval: { decision: "auto_approved" },
        execution: {
          outcome: "returned",
          calls: [{ op: "email.send_email", status: "done" }],
          refused: 0,
          value: null,
        },
      });
    },
    SLOW,
  );

  it(
    "no authority reachable: exit 2 saying how to start one, nothing runs",
    async () => {
      const before = gmail.sent.length;
      const r = await run([example("remind-me.ts")], { COUNTERSIGN_URL: "http://127.0.0.1:9" });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("countersign serve");
      expect(r.stdout).toBe("");
      const none = await run([example("remind-me.ts")], { COUNTERSIGN_HOME: join(home, "empty") });
      expect(none.code).toBe(2);
      expect(none.stderr).toContain("countersign serve");
      expect(gmail.sent.length).toBe(before);
      expect(existsSync(join(home, "empty", "countersign.db"))).toBe(false);
    },
    SLOW,
  );

  it(
    "usage errors: exit 2",
    async () => {
      expect((await run([])).code).toBe(2);
      expect((await run([example("remind-me.ts"), "--timeout", "0"])).code).toBe(2);
      expect((await run([join(home, "missing.ts")])).code).toBe(2);
    },
    SLOW,
  );
});

describe("countersign run, the program's text on the agent's terminal", () => {
  // A clipboard write (OSC 52), a title change, a screen clear, a C1 CSI, a bidi override and
  // isolate, a zero-width space and a carriage return: none may act on the terminal.
  const EVIL = "\x1b]52;c;ZXZpbA==\x07\x1b]0;owned\x07\x1b[2J\u009b31m\u202egpj.exe\u2066x\u2069\u200b\r";
  const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;
  const hostile = (end: string) => `import { program } from "countersign";

const EVIL = ${JSON.stringify(EVIL)};

export default program({
  rationale: "Say hello.",
  async main() {
    console.log("log " + EVIL);
    console.error("err " + EVIL);
    ${end}
  },
});
`;

  // What a program says reaches the terminal through its logs, what it throws and what main returns.
  it(
    "logs are made visible in text mode; --json keeps them exactly, escaped",
    async () => {
      const r = await run(["-"], {}, hostile("return;"));
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(RAW);
      expect(r.stderr).not.toMatch(RAW);
      expect(r.stderr).toContain(
        "log ⟨U+001B⟩]52;c;ZXZpbA==⟨U+0007⟩⟨U+001B⟩]0;owned⟨U+0007⟩⟨U+001B⟩[2J⟨U+009B⟩31m⟨U+202E⟩gpj.exe⟨U+2066⟩x⟨U+2069⟩⟨U+200B⟩⟨U+000D⟩",
      );
      expect(r.stderr).toContain("err ⟨U+001B⟩]52;c;");

      const j = await run(["-", "--json"], {}, hostile("return;"));
      expect(j.code).toBe(0);
      expect(j.stdout).not.toMatch(RAW);
      const report = JSON.parse(j.stdout);
      expect(report.execution.logs.map((l: { text: string }) => l.text)).toEqual([`log ${EVIL}`, `err ${EVIL}`]);
    },
    SLOW,
  );

  it(
    "what main returns is made visible as the last line; --json keeps it exactly, with where each part came from",
    async () => {
      const r = await run(["-"], {}, hostile("return { said: EVIL, n: 1 };"));
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(RAW);
      expect(lines(r.stdout).at(-1)).toMatch(/^\{"said":"\\u001b\]52;c;.*⟨U\+202E⟩gpj\.exe.*,"n":1\}$/);

      const j = await run(["-", "--json"], {}, hostile("return { said: EVIL, n: 1 };"));
      expect(j.code).toBe(0);
      const report = JSON.parse(j.stdout);
      expect(report.execution.value).toEqual({ said: EVIL, n: 1 });
      expect(report.execution.value_provenance).toEqual([
        { path: "$.said", from: [], untrusted: false },
        { path: "$.n", from: [], untrusted: false },
      ]);
    },
    SLOW,
  );

  it(
    "a value past the cap is dropped, saying so; the run still executed (exit 0)",
    async () => {
      const r = await run(["-"], {}, hostile(`return "x".repeat(70 * 1024);`));
      expect(r.code).toBe(0);
      expect(lines(r.stdout).at(-1)).toBe("null");
      expect(r.stderr).toContain(
        `value dropped: main returned ${70 * 1024 + 2} bytes of JSON, more than the ${64 * 1024} a run gives back`,
      );

      const j = await run(["-", "--json"], {}, hostile(`return "x".repeat(70 * 1024);`));
      const report = JSON.parse(j.stdout);
      expect(report).toMatchObject({
        outcome: "executed",
        exit_code: 0,
        execution: { value: null, value_dropped: { reason: "too_large", bytes: 70 * 1024 + 2, limit: 64 * 1024 } },
      });
      expect(report.execution.value_provenance).toBeUndefined();
    },
    SLOW,
  );

  it(
    "what main throws is made visible too",
    async () => {
      const r = await run(["-"], {}, hostile("throw new Error(EVIL);"));
      expect(r.code).toBe(6);
      expect(r.stdout).not.toMatch(RAW);
      expect(r.stderr).not.toMatch(RAW);
      expect(r.stderr).toMatch(/^main threw Error: ⟨U\+001B⟩\]52;c;/m);
    },
    SLOW,
  );
});
