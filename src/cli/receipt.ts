import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describeConstraint } from "../constraint/index.js";
import { CountersignError } from "../model/index.js";
import { dataDir } from "../config/index.js";
import type { ReceiptClaims } from "../model/index.js";
import { loadLocalAuthority } from "../store/index.js";
import { fetchJwks } from "../config/index.js";
import { importJwks } from "../receipt/index.js";
import { verifyReceipt, isoTime } from "../receipt/index.js";
import { visibleText } from "../model/visible-text.js";
import { terminalJson } from "./approve/terminal-json.js";
import { EXIT, reportError, usageError, type Command, type Io } from "./command.js";
import { parseSubcommand } from "./parse-flags.js";

const usage = `usage: countersign receipt verify TOKEN --program FILE [--jwks FILE|URL] [--issuer ISS] [--json]

Check a receipt as a runner would before running FILE: signature against the JWKS, header,
issuer, audience, validity window, lifetime and program hash. TOKEN - reads it from stdin.
Without --jwks and --issuer, the local authority's ($COUNTERSIGN_HOME/authority.json).
It only verifies: the receipt is not redeemed. Exit 0 valid, 3 refused (with the reason).`;

/** `countersign receipt verify`: explain whether a receipt would let a program run, and why not. */
const command: Command = {
  usage,
  async run(argv, io) {
    const json = argv.includes("--json");
    const {
      values,
      args: [tokenArg],
    } = parseSubcommand(argv, {
      options: {
        json: { type: "boolean" },
        program: { type: "string" },
        jwks: { type: "string" },
        issuer: { type: "string" },
      },
      subs: ["verify"],
      forms: "receipt verify",
      maxArgs: 1,
    });
    if (tokenArg === undefined) throw usageError("missing TOKEN (or - to read it from stdin)");
    if (values.program === undefined) throw usageError("missing --program FILE: the program the receipt must be for");
    const token = tokenArg === "-" ? asText(await io.readStdin()).trim() : tokenArg;
    const programBytes = readProgram(resolve(io.cwd, values.program));
    const trust = await trusted(values, io);
    try {
      const verified = await verifyReceipt(token, { jwks: importJwks(trust.jwks), issuer: trust.issuer, programBytes });
      // The grants quote the program's values: nothing in them may act on the terminal.
      if (json) io.stdout(terminalJson({ valid: true, kid: verified.kid, claims: verified.claims }) + "\n");
      else io.stdout(visibleText(format(verified.kid, verified.claims)));
      return EXIT.ok;
    } catch (err) {
      if (err instanceof CountersignError && err.class === "receipt_invalid")
        return reportError(err, io, json, EXIT.denied);
      throw err;
    }
  },
};

function readProgram(file: string): Uint8Array {
  try {
    return readFileSync(file);
  } catch (err) {
    throw usageError(`cannot read program ${file}: ${(err as Error).message}`);
  }
}

async function trusted(values: { jwks?: string; issuer?: string }, io: Io): Promise<{ jwks: unknown; issuer: string }> {
  const local =
    values.jwks === undefined || values.issuer === undefined ? loadLocalAuthority(dataDir(io.env)) : undefined;
  return {
    jwks: values.jwks === undefined ? local!.jwks : await readJwks(values.jwks, io),
    issuer: values.issuer ?? local!.issuer,
  };
}

async function readJwks(source: string, io: Io): Promise<unknown> {
  if (/^https?:\/\//i.test(source)) return fetchJwks(source);
  const file = resolve(io.cwd, source);
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new CountersignError("config_error", "receipt", `cannot read JWKS ${file}: ${(err as Error).message}`, {
      details: { file },
    });
  }
}

function format(kid: string, c: ReceiptClaims): string {
  const lines = [
    `receipt valid: signed by ${c.iss} with key ${kid}`,
    `  request   ${c.sub}`,
    `  decision  ${c.decision}${c.approver === undefined ? "" : ` by ${c.approver}`}`,
    `  program   ${c.program.entry} sha256 ${c.program.sha256}`,
    `  policy    sha256 ${c.policy.sha256}`,
    `  valid     ${isoTime(c.nbf)} to ${isoTime(c.exp)} (jti ${c.jti})`,
    `  grants${c.grants.length === 0 ? "    none: no call may be made" : ":"}`,
  ];
  for (const g of c.grants) {
    const limits = [
      `at most ${g.count.max ?? "any number of"} call${g.count.max === 1 ? "" : "s"}`,
      ...(g.distinct === undefined ? [] : [`${g.distinct} distinct`]),
    ];
    lines.push(
      `    ${g.op} via ${g.connector.name} (sha256 ${g.connector.sha256.slice(0, 12)}…), ${limits.join(", ")}`,
    );
    for (const [input, constraint] of Object.entries(g.args))
      lines.push(`      ${input}: ${describeConstraint(constraint)}`);
  }
  for (const l of c.across) {
    const limits = [
      ...(l.count === undefined ? [] : [`at most ${l.count.max} call${l.count.max === 1 ? "" : "s"}`]),
      ...(l.distinct === undefined ? [] : [`${l.distinct} distinct`]),
    ];
    lines.push(`  across ${l.ops.join(", ")}: ${limits.join(", ")} together`);
  }
  return lines.join("\n") + "\n";
}

export default command;

/** A token read from stdin: compact JWS is ASCII, so a lenient decode cannot make a bad token pass. */
function asText(input: Uint8Array | string): string {
  return typeof input === "string" ? input : new TextDecoder().decode(input);
}
