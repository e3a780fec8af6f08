import { LOGIN_LINK_MS, makeLoginLink } from "../app/index.js";
import { approverTarget } from "./approver-target.js";
import { EXIT, usageError, type Command } from "./command.js";
import { openBrowser } from "./open-browser.js";
import { parseFlags } from "./parse-flags.js";

const usage = `usage: countersign ui [--as NAME] [--url URL] [--no-open] [--json]

Print a one-time login link for the approval UI of the authority this data directory serves
(its URL from authority.json, $COUNTERSIGN_URL or --url), and open it in a browser when this
machine has one ($BROWSER, or the desktop's opener; not with --no-open or --json). The link is
made from the approver secret in $COUNTERSIGN_HOME: it logs in once, within
${LOGIN_LINK_MS / 1000} seconds. Decisions made in that session are recorded as NAME (default:
your user name).`;

/** `countersign ui`: a login link for the person who may read the approver secret. */
const command: Command = {
  usage,
  async run(argv, io) {
    const { values, positionals } = parseFlags({
      args: argv,
      allowPositionals: true,
      options: {
        as: { type: "string" },
        url: { type: "string" },
        "no-open": { type: "boolean" },
        json: { type: "boolean" },
      },
    });
    if (positionals.length > 0) throw usageError(`unexpected argument "${positionals[0]}"`);
    const { url, dataDir: data, approver } = approverTarget(values, io);
    const now = new Date();
    const login = `${url}/login?link=${makeLoginLink({ dataDir: data, now: () => now }, approver)}`;
    if (values.json === true) {
      io.stdout(
        JSON.stringify(
          { url: login, approver, expires_at: new Date(now.getTime() + LOGIN_LINK_MS).toISOString() },
          null,
          2,
        ) + "\n",
      );
      return EXIT.ok;
    }
    io.stdout(`${login}\n`);
    const opened = values["no-open"] !== true && (await openBrowser(login, io.env));
    io.stderr(
      `countersign ui: ${opened ? "opened in your browser; else open" : "open"} the link within ${LOGIN_LINK_MS / 1000} s; it works once\n`,
    );
    return EXIT.ok;
  },
};

export default command;
