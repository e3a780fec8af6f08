// The setup of a test file that runs programs end to end: an authority on 127.0.0.1 (SQLite), an
// approver session, the Gmail-shaped provider as the email connection, a Sandbox folder as the fs
// root, the runner's environment and a submitter client.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import type { AuthorityClient } from "../../src/app/index.js";
import type { AuthorityOptions } from "../../src/authority/index.js";
import { httpAuthority } from "../../src/cli/http-authority.js";
import { startTestAuthority, type ApproverSession, type TestAuthority } from "../authority/harness.js";

export interface RunHarness {
  a: TestAuthority;
  alice: ApproverSession;
  gmail: GmailServer;
  env: NodeJS.ProcessEnv;
  client: AuthorityClient;
  close(): Promise<void>;
}

/** `extra`: authority options, e.g. `policies` (a folder of the user's policy files). */
export async function startRunHarness(gmailToken: string, extra: Partial<AuthorityOptions> = {}): Promise<RunHarness> {
  const a = await startTestAuthority("sqlite", extra);
  const alice = await a.login("alice");
  const gmail = await startGmailServer({ token: gmailToken });
  const sandbox = join(a.dataDir, "..", "Sandbox");
  mkdirSync(sandbox, { recursive: true });
  const tokenFile = join(a.dataDir, "gmail-token");
  writeFileSync(tokenFile, gmailToken, { mode: 0o600 });
  writeFileSync(join(a.dataDir, "connections.toml"), `[email]\nbase_url = "${gmail.url}"\ntoken_file = "${tokenFile}"\n\n[fs]\nroots = ["${sandbox}"]\n`);
  return {
    a,
    alice,
    gmail,
    env: { HOME: join(a.dataDir, ".."), COUNTERSIGN_HOME: a.dataDir },
    client: httpAuthority({ url: a.url, token: a.token }),
    close: async () => {
      await a.close();
      await gmail.close();
    },
  };
}
