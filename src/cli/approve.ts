import { ApproverClient } from "./approve/approver-client.js";
import { terminalJson } from "./approve/terminal-json.js";
import { TerminalApprover } from "./approve/terminal-approver.js";
import { approverTarget } from "./approver-target.js";
import { EXIT, usageError, type Command } from "./command.js";
import { parseFlags } from "./parse-flags.js";

const usage = `usage: countersign approve [--as NAME] [--url URL] [--json]

The terminal approver: the pending requests of the authority this data directory serves (its URL
from authority.json, $COUNTERSIGN_URL or --url), new ones as they arrive, each by what it will
do, its risks and the program's (agent-chosen) name. Open one: its first screen says what the
program will do, the verdict and the risks, danger first; the full detail follows (the policy's
rulings, the verified facts, the trusted calls, the previews, the agent's own words set apart,
the source). Decide with one key:
  a approve once (asks again when a danger is flagged)
  A approve and remember (shows the rules, asks who and how long, then confirms)
  r reject (asks the reason) · m request changes (asks the text, confirms: ends the request)
  ? ask a question, answered here from the facts (the request keeps waiting)
  p show a long preview whole · v show or hide the source · j/k/Space/b scroll
  H the history (decided and expired requests, auto-passes included), read-only
  Enter open · Esc back · q quit
It logs in with the approver secret in $COUNTERSIGN_HOME (never a submitter token); decisions are
recorded as NAME (default: your user name). Plain ANSI, no mouse: it works over SSH. Agent text
is shown with control characters and escape sequences made visible. --json prints the pending
requests as JSON and exits.`;

/** `countersign approve`: decide pending requests from a terminal. */
const command: Command = {
  usage,
  async run(argv, io) {
    const { values, positionals } = parseFlags({
      args: argv,
      allowPositionals: true,
      options: { as: { type: "string" }, url: { type: "string" }, json: { type: "boolean" } },
    });
    if (positionals.length > 0) throw usageError(`unexpected argument "${positionals[0]}"`);
    const { url, dataDir: data, approver } = approverTarget(values, io);
    const client = new ApproverClient({ url: url, dataDir: data, approver });
    const pending = await client.pending(); // before the screen: a login or connection error reads as a plain message
    if (values.json === true) {
      io.stdout(terminalJson({ requests: pending }) + "\n");
      return EXIT.ok;
    }
    // The screen needs the process's own terminal (raw keys, its size), not the Io's text writers.
    if (!process.stdin.isTTY || !process.stdout.isTTY)
      throw usageError("approve needs a terminal (or --json to list the pending requests)");
    const color = (io.env.NO_COLOR ?? "") === "" && io.env.TERM !== "dumb";
    await new TerminalApprover(client, { input: process.stdin, output: process.stdout, color }, approver).run(pending);
    return EXIT.ok;
  },
};

export default command;
