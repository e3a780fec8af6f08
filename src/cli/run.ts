import { resolve } from "node:path";
import type { RunEvent, RunOutcome, RunReport } from "../app/index.js";
import { checkWords, trustedCallsWords } from "../app/run-words.js";
import { visibleText } from "../model/visible-text.js";
import { dataDir } from "../config/index.js";
import { CountersignError, DEFAULT_DEADLINE_SECONDS, MAX_DEADLINE_SECONDS } from "../model/index.js";
import { findAuthority } from "./authority-client.js";
import { terminalJson } from "./approve/terminal-json.js";
import { EXIT, reportError, usageError, type Command, type Io } from "./command.js";
import { httpAuthority, START_AUTHORITY } from "./http-authority.js";
import { parseFlags, positiveFlag } from "./parse-flags.js";
import { readManifests, readSource } from "./read-source.js";

const usage = `usage: countersign run FILE|- [--manifest M.toml]... [--timeout S] [--detach] [--json]
       countersign run FILE|- --resume REQ_ID [--manifest M.toml]... [--timeout S] [--detach] [--json]
       countersign run --withdraw REQ_ID [--json]

Run an agent program (FILE, or - for stdin) the whole way: check it (exit 1 with the diagnostics
when it is refused), submit it to the authority ($COUNTERSIGN_URL, else the URL in
$COUNTERSIGN_HOME/authority.json; the token from $COUNTERSIGN_TOKEN, else submitter.token), wait
for a person when the policy asks (the review URL and a progress line on stderr; the request is
withdrawn after --timeout seconds, default ${DEFAULT_DEADLINE_SECONDS}, and on Ctrl-C), verify and
redeem the receipt once, then run main in the sandbox, every trusted call checked against the
receipt. It never starts an authority: with none reachable nothing runs.

--detach does not wait for a person: when the policy asks, it prints "pending: REQ_ID" (stdout)
and exits 7, the request left open for --timeout seconds (default ${DEFAULT_DEADLINE_SECONDS}).
A program the policy approves or denies at once runs, or is denied, as without it.

--resume REQ_ID takes up that earlier request instead of submitting again: FILE must be its
program byte for byte (else exit 2, nothing runs), with the same --manifest files. Approved, it
runs, once: a request whose receipt was redeemed already says so (exit 2). Rejected, changes
requested, expired or withdrawn: it says so with the reason or feedback (exit 3, 4, 5). Still
pending: it waits as a run does (at most --timeout seconds, else until the request's deadline;
the request is not withdrawn when the wait ends or on Ctrl-C), or with --detach exits 7 again.

--withdraw REQ_ID withdraws a pending request of this submitter (exit 0), so that no approval can
come for it; a decided one stays as it is (exit 2).

--manifest M.toml (repeatable) submits an action manifest of the agent's own with the program (its
actions imported from trusted/agent): checked here and at the authority against the trusted
manifests (exit 1 with every problem), and the receipt must be for exactly these manifests.

Exit: 0 executed, 1 refused by the analysis, 2 usage or configuration error (no authority; a
request that cannot be resumed: unknown, another program's, or run already), 3 denied, 4 changes
requested (the feedback on stderr), 5 expired, timed out or withdrawn, 6 execution failed (a call
refused, a connector error, a sandbox limit, a receipt that does not hold), 7 pending (a person
has not decided yet: resume it later), 130 interrupted.`;

/**
 * A person has not decided yet (--detach, or a resumed request still waiting): distinct from
 * success, refusal and every error, so that a script or an agent knows to resume the request
 * later rather than to give up or submit again.
 */
export const EXIT_PENDING = 7;

/** The exit code of each way a run ends (docs/architecture.md section 12). */
const EXIT_OF: Record<RunOutcome, number> = {
  executed: EXIT.ok,
  refused: EXIT.rejected,
  unavailable: EXIT.usage,
  invalid: EXIT.usage,
  denied: EXIT.denied,
  request_more: EXIT.requestMore,
  expired: EXIT.expired,
  failed: EXIT.failed,
  pending: EXIT_PENDING,
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
      const { values, positionals } = parseFlags({
        args: argv,
        allowPositionals: true,
        options: {
          json: { type: "boolean" },
          timeout: { type: "string" },
          manifest: { type: "string", multiple: true },
          detach: { type: "boolean" },
          resume: { type: "string" },
          withdraw: { type: "string" },
        },
      });
      if (values.withdraw !== undefined) {
        const other =
          positionals[0] ??
          (values.resume !== undefined
            ? "--resume"
            : values.detach === true
              ? "--detach"
              : values.timeout !== undefined
                ? "--timeout"
                : values.manifest !== undefined
                  ? "--manifest"
                  : undefined);
        if (other !== undefined)
          throw usageError(`--withdraw takes a request id alone: countersign run --withdraw REQ_ID (not "${other}")`);
        return await withdrawRequest(requestId(values.withdraw, "--withdraw"), io, json);
      }
      const [file, ...extra] = positionals;
      if (file === undefined) throw usageError("missing FILE: countersign run FILE (or - for stdin)");
      if (extra.length > 0) throw usageError(`unexpected argument "${extra[0]}"`);
      const resume = values.resume === undefined ? undefined : requestId(values.resume, "--resume");
      const detach = values.detach === true;
      const timeout = positiveFlag(values.timeout, "--timeout", MAX_DEADLINE_SECONDS);
      const timeoutSeconds = timeout ?? DEFAULT_DEADLINE_SECONDS;
      const source = file === "-" ? await io.readStdin() : readSource(resolve(io.cwd, file));
      const manifests = readManifests(values.manifest, io.cwd);
      const address = findAuthority(io.env, dataDir(io.env));
      if (address === undefined)
        throw new CountersignError("config_error", "cli", `no authority is configured: ${START_AUTHORITY}`);

      const { localContext, runAgentProgram } = await import("../app/index.js");
      const ctx = localContext(io.env);
      const printer = new Printer(io, json, { file, resumed: resume !== undefined });
      const interrupt = new AbortController();
      // a second Ctrl-C does not wait
      const onSigint = () => (interrupt.signal.aborted ? process.exit(130) : interrupt.abort());
      process.on("SIGINT", onSigint);
      // How long this call waits: --detach not at all; a resumed request --timeout, else until its
      // deadline; a new one --timeout (its deadline too), after which it is withdrawn, as on Ctrl-C.
      const waitSeconds = detach ? 0 : resume !== undefined ? timeout : timeoutSeconds;
      let report: RunReport;
      try {
        report = await runAgentProgram(
          ctx,
          {
            source,
            entry: file === "-" ? "stdin.ts" : file,
            timeoutSeconds,
            ...(waitSeconds === undefined ? {} : { waitSeconds }),
            ...(resume === undefined ? {} : { resume }),
            ...(manifests.length > 0 ? { manifests } : {}),
          },
          {
            client: httpAuthority(address),
            onProgress: (e) => printer.event(e),
            signal: interrupt.signal,
            withdrawOnGiveUp: !detach && resume === undefined,
          },
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

/** A request id as a flag's value: what the authority's ids look like, nothing that could act on a path. */
function requestId(value: string, flag: string): string {
  if (!/^[\w-]{1,100}$/.test(value)) throw usageError(`${flag} takes a request id such as req_..., not "${value}"`);
  return value;
}

/** `countersign run --withdraw REQ_ID`: the explicit act that takes a pending request back. */
async function withdrawRequest(id: string, io: Io, json: boolean): Promise<number> {
  const address = findAuthority(io.env, dataDir(io.env));
  if (address === undefined)
    throw new CountersignError("config_error", "cli", `no authority is configured: ${START_AUTHORITY}`);
  await httpAuthority(address).withdraw(id);
  if (json) io.stdout(terminalJson({ request_id: id, status: "withdrawn", exit_code: EXIT.ok }) + "\n");
  else io.stdout(`withdrawn: ${visibleText(id)}\n`);
  return EXIT.ok;
}

/**
 * The run's human output, line by line as it happens; with --json, one object at the end. Most
 * of it is the program's (its logs, value, errors) or quotes it (diagnostics, reasons), and it
 * goes to the agent's terminal: every line is made visible (no escape sequence, bidi or
 * zero-width character acts on the terminal), and the JSON escapes them.
 */
class Printer {
  #progressShown: number | undefined; // when the last non-TTY progress line went out
  #inPlace = false; // a TTY progress line is on screen without its newline

  readonly #io: Io;
  readonly #json: boolean;
  readonly #run: { file: string; resumed: boolean };

  constructor(
    io: Io,
    json: boolean,
    run: { file: string; resumed: boolean }, // what was run, for the commands it suggests
  ) {
    this.#io = io;
    this.#json = json;
    this.#run = run;
  }

  event(e: RunEvent): void {
    if (e.type === "waiting") return this.#progress(e.elapsed_ms);
    if (this.#json) return;
    switch (e.type) {
      case "checked":
        this.#out(`check: ${checkWords(e.check)}`);
        return;
      case "decided":
        this.#out(
          `policy: ${e.policy.decision} (${e.policy.rules.length === 0 ? "default" : e.policy.rules.join(", ")})`,
        );
        if (e.request.review_url !== undefined) this.#err(`review: ${e.request.review_url}`);
        return;
      case "approved":
        this.#out(
          `approval: ${e.approval.decision} receipt=${e.approval.jti} (expires in ${e.approval.expires_in_s} s)`,
        );
        return;
      case "executed":
        this.#out(`executed: main (${trustedCallsWords(e.execution.calls.length)})`);
        return;
    }
  }

  endProgress(): void {
    if (this.#inPlace) this.#io.stderr("\n");
    this.#inPlace = false;
  }

  /** What is left to say once the run is over: main's value, and on stderr why it did not go further. */
  end(report: RunReport): void {
    const id = report.request?.id;
    if (this.#json) {
      const pending = report.outcome === "pending" && id !== undefined ? { next: this.#pendingNext(id) } : {};
      const { outcome, ...rest } = report;
      this.#io.stdout(
        terminalJson({
          outcome,
          ...(id === undefined ? {} : { request_id: id }),
          ...rest,
          exit_code: EXIT_OF[outcome],
          ...pending,
        }) + "\n",
      );
      return;
    }
    const { check, execution, decision, error } = report;
    if (check?.ok === false) {
      for (const d of check.diagnostics) this.#err(`${d.line}:${d.column}: ${d.severity} ${d.code}: ${d.message}`);
      for (const g of check.refuted)
        this.#err(`${g.site === undefined ? "" : `${g.site.line}:${g.site.column}: `}refuted ${g.text}: ${g.why}`);
    }
    if (execution !== undefined) {
      for (const line of execution.logs) this.#err(`${line.stream}: ${line.text}`);
      for (const call of execution.calls)
        if (call.error !== undefined)
          this.#err(`${call.op} ${call.status}: ${call.error.class}: ${call.error.message}`);
      if (execution.thrown !== undefined) this.#err(`main threw ${execution.thrown.name}: ${execution.thrown.message}`);
      if (execution.limit !== undefined) this.#err(`stopped: ${execution.limit.class}: ${execution.limit.message}`);
      const dropped = execution.value_dropped;
      if (dropped !== undefined) this.#err(droppedWords(dropped));
      if (execution.outcome === "returned") this.#out(JSON.stringify(execution.value));
    }
    const on = id === undefined ? "" : `on ${id} `;
    if (report.outcome === "request_more" && decision?.feedback !== null && decision?.feedback !== undefined)
      this.#err(`changes requested: ${decision.feedback}`);
    else if (report.outcome === "denied")
      this.#err(`reason: ${decision?.reason ?? report.policy?.reason ?? "none given"}`);
    else if (report.outcome === "expired" && error === undefined) {
      if (decision?.kind === "withdrawn") this.#err(`withdrawn: request ${id ?? ""} was withdrawn, nothing ran`);
      else if (decision?.kind === "expired") this.#err(`expired: no decision ${on}before its deadline, nothing ran`);
      else this.#err(`expired: no decision ${on}in time; the request is withdrawn`);
    } else if (report.outcome === "pending" && id !== undefined) {
      this.#out(`pending: ${id}`);
      this.#err(this.#pendingNext(id));
    } else if (report.outcome === "cancelled" && error === undefined) {
      if (this.#run.resumed && report.approval === undefined && id !== undefined)
        this.#err(`interrupted: request ${id} is left as it was; ${this.#pendingNext(id)}`);
      else this.#err("interrupted: the request is withdrawn");
    }
    if (error !== undefined) this.#err(`countersign: ${error.class}: ${error.message}`);
  }

  /** What to do about a request a person has not decided yet: resume it, or take it back. */
  #pendingNext(id: string): string {
    const file = /^[\w./@+-]+$/.test(this.#run.file) ? this.#run.file : JSON.stringify(this.#run.file);
    return `a person has not decided yet: \`countersign run ${file} --resume ${id}\` runs it once approved (waiting for the decision; add --detach to only look), \`countersign run --withdraw ${id}\` takes it back`;
  }

  #progress(elapsedMs: number): void {
    const line = `waiting for approval: ${clock(elapsedMs)} elapsed`;
    if (this.#io.tty === true) {
      this.#io.stderr(`\r\x1b[K${line}`);
      this.#inPlace = true;
    } else if (this.#progressShown === undefined || elapsedMs - this.#progressShown >= PROGRESS_LINE_MS) {
      this.#progressShown = elapsedMs;
      this.#err(line);
    }
  }

  #out(line: string): void {
    this.endProgress();
    this.#io.stdout(visibleText(line) + "\n");
  }

  #err(line: string): void {
    this.endProgress();
    this.#io.stderr(visibleText(line) + "\n");
  }
}

/** Elapsed time as m:ss. */
function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** Why the value is not shown, in a line. */
function droppedWords(dropped: NonNullable<NonNullable<RunReport["execution"]>["value_dropped"]>): string {
  switch (dropped.reason) {
    case "too_large":
      return `value dropped: main returned ${dropped.bytes} bytes of JSON, more than the ${dropped.limit} a run gives back`;
    case "not_plain_data":
      return `value dropped: what main returned at ${dropped.path} ${dropped.why}`;
    case "not_recorded":
      return `value, logs and error withheld: the authority did not record the run's output (${dropped.why})`;
  }
}
