import { resolve } from "node:path";
import type { RunEvent, RunOutcome, RunReport } from "../app/index.js";
import { visibleText } from "../model/visible-text.js";
import { dataDir } from "../config/index.js";
import { CountersignError, DEFAULT_DEADLINE_SECONDS, MAX_DEADLINE_SECONDS } from "../model/index.js";
import { findAuthority } from "./authority-client.js";
import { terminalJson } from "./approve/terminal-json.js";
import { EXIT, reportError, usageError, type Command, type Io } from "./command.js";
import { httpAuthority, START_AUTHORITY } from "./http-authority.js";
import { parseFlags, positiveFlag } from "./parse-flags.js";
import { readManifests, readSource } from "./read-source.js";

const usage = `usage: countersign run [FILE|-] [--manifest M.toml]... [--timeout S] [--json]

Run an agent program (FILE, or - for stdin) the whole way: check it (exit 1 with the diagnostics
when it is refused), submit it to the authority ($COUNTERSIGN_URL, else the URL in
$COUNTERSIGN_HOME/authority.json; the token from $COUNTERSIGN_TOKEN, else submitter.token), wait
for a person when the policy asks (the review URL and a progress line on stderr; the request is
withdrawn after --timeout seconds, default ${DEFAULT_DEADLINE_SECONDS}, and on Ctrl-C), verify and
redeem the receipt once, then run main in the sandbox, every trusted call checked against the
receipt. It never starts an authority: with none reachable nothing runs.

--manifest M.toml (repeatable) submits an action manifest of the agent's own with the program (its
actions imported from trusted/agent): checked here and at the authority against the trusted
manifests (exit 1 with every problem), and the receipt must be for exactly these manifests.

Exit: 0 executed, 1 refused by the analysis, 2 usage or configuration error (no authority),
3 denied, 4 changes requested (the feedback on stderr), 5 expired or timed out, 6 execution
failed (a call refused, a connector error, a sandbox limit, a receipt that does not hold),
130 interrupted.`;

/** The exit code of each way a run ends (DESIGN.md section 12). */
const EXIT_OF: Record<RunOutcome, number> = {
  executed: EXIT.ok,
  refused: EXIT.rejected,
  unavailable: EXIT.usage,
  denied: EXIT.denied,
  request_more: EXIT.requestMore,
  expired: EXIT.expired,
  failed: EXIT.failed,
  cancelled: 130,
};

/** Non-TTY progress: one line a minute. */
const PROGRESS_LINE_MS = 60_000;

/** `countersign run`: the command agents use, a thin adapter over the runAgentProgram use case. */
const command: Command = {
  usage,
  async run(argv, io) {
    const json = argv.includes("--json");
    try {
      const { values, positionals } = parseFlags({ args: argv, allowPositionals: true, options: { json: { type: "boolean" }, timeout: { type: "string" }, manifest: { type: "string", multiple: true } } });
      const [file, ...extra] = positionals;
      if (file === undefined) throw usageError("missing FILE: countersign run FILE (or - for stdin)");
      if (extra.length > 0) throw usageError(`unexpected argument "${extra[0]}"`);
      const timeoutSeconds = positiveFlag(values.timeout, "--timeout", MAX_DEADLINE_SECONDS) ?? DEFAULT_DEADLINE_SECONDS;
      const source = file === "-" ? await io.readStdin() : readSource(resolve(io.cwd, file));
      const manifests = readManifests(values.manifest, io.cwd);
      const address = findAuthority(io.env, dataDir(io.env));
      if (address === undefined) throw new CountersignError("config_error", "cli", `no authority is configured: ${START_AUTHORITY}`);

      const { localContext, runAgentProgram } = await import("../app/index.js");
      const ctx = localContext(io.env);
      const printer = new Printer(io, json);
      const interrupt = new AbortController();
      const onSigint = () => (interrupt.signal.aborted ? process.exit(130) : interrupt.abort()); // a second Ctrl-C does not wait
      process.on("SIGINT", onSigint);
      let report: RunReport;
      try {
        report = await runAgentProgram(
          ctx,
          { source, entry: file === "-" ? "stdin.ts" : file, timeoutSeconds, ...(manifests.length > 0 ? { manifests } : {}) },
          { client: httpAuthority(address), onProgress: (e) => printer.event(e), signal: interrupt.signal },
        );
      } finally {
        process.off("SIGINT", onSigint);
        printer.endProgress();
        await ctx.close();
      }
      printer.end(report);
      return EXIT_OF[report.outcome];
    } catch (err) {
      return reportError(err, io, json);
    }
  },
};

export default command;

/**
 * The run's human output, line by line as it happens; with --json, one object at the end. Most
 * of it is the program's (its logs, value, errors) or quotes it (diagnostics, reasons), and it
 * goes to the agent's terminal: every line is made visible (no escape sequence, bidi or
 * zero-width character acts on the terminal), and the JSON escapes them.
 */
class Printer {
  private progressShown: number | undefined; // when the last non-TTY progress line went out
  private inPlace = false; // a TTY progress line is on screen without its newline

  constructor(
    private readonly io: Io,
    private readonly json: boolean,
  ) {}

  event(e: RunEvent): void {
    if (e.type === "waiting") return this.progress(e.elapsed_ms);
    if (this.json) return;
    switch (e.type) {
      case "checked": {
        const { effects, guarantees, proven, enforced } = e.check;
        this.out(`check: ${effects} effects, ${guarantees} guarantees (${proven} proven, ${enforced} enforced at run time)`);
        return;
      }
      case "decided":
        this.out(`policy: ${e.policy.decision} (${e.policy.rules.length === 0 ? "default" : e.policy.rules.join(", ")})`);
        if (e.request.review_url !== undefined) this.err(`review: ${e.request.review_url}`);
        return;
      case "approved":
        this.out(`approval: ${e.approval.decision} receipt=${e.approval.jti} (expires in ${e.approval.expires_in_s} s)`);
        return;
      case "executed":
        this.out(`executed: main (${e.execution.calls.length} trusted calls)`);
        return;
    }
  }

  endProgress(): void {
    if (this.inPlace) this.io.stderr("\n");
    this.inPlace = false;
  }

  /** What is left to say once the run is over: main's value, and on stderr why it did not go further. */
  end(report: RunReport): void {
    if (this.json) {
      this.io.stdout(terminalJson({ ...report, exit_code: EXIT_OF[report.outcome] }) + "\n");
      return;
    }
    const { check, execution, decision, error } = report;
    if (check?.ok === false) {
      for (const d of check.diagnostics) this.err(`${d.line}:${d.column}: ${d.severity} ${d.code}: ${d.message}`);
      for (const g of check.refuted) this.err(`${g.site === undefined ? "" : `${g.site.line}:${g.site.column}: `}refuted ${g.text}: ${g.why}`);
    }
    if (execution !== undefined) {
      for (const line of execution.logs) this.err(`${line.stream}: ${line.text}`);
      for (const call of execution.calls) if (call.error !== undefined) this.err(`${call.op} ${call.status}: ${call.error.class}: ${call.error.message}`);
      if (execution.thrown !== undefined) this.err(`main threw ${execution.thrown.name}: ${execution.thrown.message}`);
      if (execution.limit !== undefined) this.err(`stopped: ${execution.limit.class}: ${execution.limit.message}`);
      if (execution.outcome === "returned") this.out(JSON.stringify(execution.value));
    }
    if (report.outcome === "request_more" && decision?.feedback !== null && decision?.feedback !== undefined) this.err(`changes requested: ${decision.feedback}`);
    else if (report.outcome === "denied") this.err(`reason: ${decision?.reason ?? report.policy?.reason ?? "none given"}`);
    else if (report.outcome === "expired" && error === undefined) this.err(`expired: no decision ${report.request === undefined ? "" : `on ${report.request.id} `}in time; the request is withdrawn`);
    else if (report.outcome === "cancelled" && error === undefined) this.err("interrupted: the request is withdrawn");
    if (error !== undefined) this.err(`countersign: ${error.class}: ${error.message}`);
  }

  private progress(elapsedMs: number): void {
    const line = `waiting for approval: ${clock(elapsedMs)} elapsed`;
    if (this.io.tty === true) {
      this.io.stderr(`\r\x1b[K${line}`);
      this.inPlace = true;
    } else if (this.progressShown === undefined || elapsedMs - this.progressShown >= PROGRESS_LINE_MS) {
      this.progressShown = elapsedMs;
      this.err(line);
    }
  }

  private out(line: string): void {
    this.endProgress();
    this.io.stdout(visibleText(line) + "\n");
  }

  private err(line: string): void {
    this.endProgress();
    this.io.stderr(visibleText(line) + "\n");
  }
}

/** Elapsed time as m:ss. */
function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
