// The setup of a test file that runs programs end to end: an authority on 127.0.0.1 (SQLite), an
// approver session, the Gmail-shaped provider as the email connection, a Sandbox folder as the fs
// root (and, when asked, an issue tracker's host for the http connector), the runner's environment
// and a submitter client; and the two moves of such a test: run a program as `countersign run`
// does, and decide the request it leaves pending as the person.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import {
  localContext,
  runAgentProgram,
  type AuthorityClient,
  type RunEvent,
  type RunInput,
  type RunReport,
} from "../../src/app/index.js";
import type { AuthorityOptions } from "../../src/authority/index.js";
import { httpAuthority } from "../../src/cli/http-authority.js";
import { startTestAuthority, type ApproverSession, type TestAuthority } from "../authority/harness.js";
import { allowTracker } from "../support/issue-tracker.js";

export interface RunHarnessOptions {
  gmailToken?: string; // the provider's bearer token, which the email connection's token file holds
  trackerHost?: string; // an issue tracker the http connector may reach, the shipped policy's host changed to it
  authority?: Partial<AuthorityOptions>; // e.g. `policies`, a folder of the user's policy files
}

/** One run: its program (entry "program.ts" unless given), and what the test changes about the runner. */
export interface HarnessRun {
  client?: AuthorityClient; // default the harness's client
  now?: () => Date; // the runner's clock
  events?: RunEvent[]; // collects the run's progress events
  signal?: AbortSignal;
  withdrawOnGiveUp?: boolean; // as `countersign run` without --detach: a wait that ends withdraws the request
}

export interface RunHarness {
  a: TestAuthority;
  alice: ApproverSession;
  gmail: GmailServer;
  env: NodeJS.ProcessEnv;
  client: AuthorityClient;
  run(input: Omit<RunInput, "entry"> & { entry?: string }, options?: HarnessRun): Promise<RunReport>;
  /** Decide the first pending request once one appears, as alice (default: approve once); its id. */
  decideWhenPending(decision?: Record<string, string>): Promise<string>;
  close(): Promise<void>;
}

export async function startRunHarness(options: RunHarnessOptions = {}): Promise<RunHarness> {
  const gmailToken = options.gmailToken ?? "run-harness-token";
  const dataDir = join(mkdtempSync(join(tmpdir(), "countersign-run-")), "data");
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const sandbox = join(dataDir, "..", "Sandbox");
  mkdirSync(sandbox);
  const gmail = await startGmailServer({ token: gmailToken });
  const tokenFile = join(dataDir, "gmail-token");
  writeFileSync(tokenFile, gmailToken, { mode: 0o600 });
  const connections = `[email]\naddress = "me@example.com"\nbase_url = "${gmail.url}"\ntoken_file = "${tokenFile}"\n\n[fs]\nroots = ["${sandbox}"]\n\n`;
  if (options.trackerHost === undefined) writeFileSync(join(dataDir, "connections.toml"), connections);
  else allowTracker(dataDir, options.trackerHost, connections);
  const a = await startTestAuthority("sqlite", { ...options.authority, dataDir });
  const alice = await a.login("alice");
  const env = { HOME: join(dataDir, ".."), COUNTERSIGN_HOME: dataDir };
  const client = httpAuthority({ url: a.url, token: a.token });
  return {
    a,
    alice,
    gmail,
    env,
    client,
    async run(input, run = {}) {
      const ctx = localContext(env);
      if (run.now !== undefined) ctx.now = run.now;
      try {
        return await runAgentProgram(
          ctx,
          { entry: "program.ts", ...input },
          {
            client: run.client ?? client,
            onProgress: (e) => run.events?.push(e),
            ...(run.signal === undefined ? {} : { signal: run.signal }),
            ...(run.withdrawOnGiveUp === undefined ? {} : { withdrawOnGiveUp: run.withdrawOnGiveUp }),
          },
        );
      } finally {
        await ctx.close();
      }
    },
    async decideWhenPending(decision = { decision: "approved_once" }) {
      for (let i = 0; i < 600; i++) {
        const pending = await a.call("GET", "/v1/requests?status=pending", { session: alice });
        const id = pending.body.requests?.[0]?.id as string | undefined;
        if (id !== undefined) {
          // An approver approves what the page showed them: its binding's digest goes with the approval.
          const shown = (decision.decision ?? "").startsWith("approved")
            ? ((await a.call("GET", `/v1/requests/${id}/page`, { session: alice })).body.binding?.sha256 as
                | string
                | undefined)
            : undefined;
          const body = shown === undefined ? decision : { ...decision, shown };
          const answer = await a.call("POST", `/v1/requests/${id}/decision`, { session: alice, body });
          if (answer.status !== 200)
            throw new Error(`deciding ${id} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
          return id;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error("no request became pending");
    },
    close: async () => {
      await a.close();
      await gmail.close();
    },
  };
}

/**
 * A harness for the tests of one file: started before them (a function gives its options then, e.g.
 * once a server they name has started), closed after them. Its fields are there once they run.
 */
export function runHarnessForSuite(
  options: RunHarnessOptions | (() => RunHarnessOptions | Promise<RunHarnessOptions>) = {},
): RunHarness {
  const harness = {} as RunHarness;
  let started: RunHarness | undefined;
  beforeAll(async () => {
    started = await startRunHarness(typeof options === "function" ? await options() : options);
    Object.assign(harness, started);
  });
  afterAll(() => started?.close());
  return harness;
}
