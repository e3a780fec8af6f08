// Run the local Gmail-shaped server: `npx tsx examples/gmail-server/main.ts [--port 8025] [--token secret]`.
// Point countersign at it in connections.toml: [email] base_url = "http://127.0.0.1:8025", token_file = "<file holding the token>".
// With `--oauth FILE` it takes no fixed token: a Google-shaped OAuth server starts beside it (on
// --oauth-port, default 8026), its client secret goes to FILE (0600), and the mail server takes
// only that server's live access tokens, so that `countersign connect` can be tried end to end.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { startGmailServer } from "./gmail-server.js";
import { startOAuthServer } from "./oauth-server.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8025" },
    token: { type: "string", default: "dev-token" },
    oauth: { type: "string" },
    "oauth-port": { type: "string", default: "8026" },
  },
});

const provider =
  values.oauth === undefined ? undefined : await startOAuthServer({ port: Number(values["oauth-port"]) });
const server = await startGmailServer(
  provider === undefined
    ? { port: Number(values.port), token: values.token }
    : { port: Number(values.port), token: "", accepts: (token) => provider.accepts(token) },
);
if (provider === undefined) {
  process.stdout.write(`Gmail-shaped server on ${server.url} (Bearer token: ${values.token}); Ctrl-C to stop\n`);
} else {
  const secretFile = resolve(values.oauth!);
  writeFileSync(secretFile, `${provider.clientSecret}\n`, { mode: 0o600 });
  process.stdout.write(
    [
      `Gmail-shaped server on ${server.url}, taking only access tokens of the OAuth server on ${provider.url}`,
      `  authorize URL  ${provider.authUrl}`,
      `  token URL      ${provider.tokenUrl}`,
      `  client id      ${provider.clientId}`,
      `  client secret  in ${secretFile}`,
      "Ctrl-C to stop",
      "",
    ].join("\n"),
  );
}
process.on("SIGINT", () => {
  for (const m of server.sent) process.stdout.write(`sent ${m.id} to ${m.to.join(", ")}: ${m.subject}\n`);
  void Promise.all([server.close(), provider?.close()]).then(() => process.exit(0));
});
