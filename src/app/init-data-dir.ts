import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makePrivateDir, packageRoot } from "../model/index.js";
import {
  APPROVER_SECRET_FILE,
  createApproverSecret,
  keyringPath,
  requireWritableDir,
  SUBMITTER_TOKEN_FILE,
  writeFileAtomic,
  writeLocalAuthority,
  writeNewFile,
} from "../store/index.js";
import type { AppContext } from "./context.js";

/** The name of the submitter token made on first start. */
export const FIRST_TOKEN = "agent";

export interface InitResult {
  dataDir: string;
  created: string[]; // what this call made, as paths
  tokenFile: string | undefined; // the first submitter token's file, when it was made now
}

const CONNECTIONS = `# Where each connector points, and the credential the host injects for it (never seen by a
# program or a plugin). One table per connector; a connector without one cannot be called.
#
# [email]
# base_url = "https://gmail.googleapis.com"
# token_file = "/home/me/.countersign/gmail-token"   # a file holding an access token, or instead:
#                                                     # \`countersign connect email --provider google ...\`
#                                                     # writes an [email.oauth] table the host renews tokens with
# address = "me@example.com"                          # your own address on that account
#
# [http]
# hosts = ["api.example.com:443"]                     # host:port, explicit port, no wildcards
#
# [fs]
# roots = ["/home/me/Sandbox"]                        # absolute folders the fs connector may touch
`;

/**
 * Make what an authority needs in its data directory, keeping whatever is there: the signing key,
 * the approver secret (0600), a commented connections.toml, a copy of the shipped policy to edit
 * (with its tests), authority.json, and — when the store has no submitter token yet — the first
 * one, written to submitter.token (0600). Idempotent: a second call writes nothing. A directory
 * it cannot write is a config_error that says so.
 */
export async function initDataDir(ctx: Pick<AppContext, "dataDir" | "keys" | "now" | "store">): Promise<InitResult> {
  const dir = ctx.dataDir;
  const created: string[] = [];
  const made = (path: string, ok: boolean): void => void (ok && created.push(path));
  requireWritableDir(dir);
  makePrivateDir(dir);
  const keyring = keyringPath(dir);
  const hadKey = existsSync(keyring);
  await ctx.keys.keyring(ctx.now());
  made(keyring, !hadKey);
  made(join(dir, APPROVER_SECRET_FILE), createApproverSecret(dir));
  made(join(dir, "connections.toml"), writeNewFile(join(dir, "connections.toml"), CONNECTIONS, 0o600));
  const policies = join(dir, "policies");
  if (!existsSync(policies)) {
    makePrivateDir(join(policies, "tests"));
    for (const file of ["default.toml", join("tests", "default.toml")]) {
      writeNewFile(join(policies, file), readFileSync(join(packageRoot, "policies", file), "utf8"), 0o600);
    }
    created.push(policies);
  }
  const hadAuthority = existsSync(join(dir, "authority.json"));
  writeLocalAuthority(dir);
  made(join(dir, "authority.json"), !hadAuthority);
  const store = await ctx.store();
  let tokenFile: string | undefined;
  if ((await store.listTokens()).length === 0) {
    const { token } = await store.addToken(FIRST_TOKEN);
    tokenFile = join(dir, SUBMITTER_TOKEN_FILE);
    writeFileAtomic(tokenFile, token + "\n", 0o600);
    created.push(tokenFile);
  }
  return { dataDir: dir, created, tokenFile };
}
