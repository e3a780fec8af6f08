// Run the local Gmail-shaped server: `npx tsx examples/gmail-server/main.ts [--port 8025] [--token secret]`.
// Point countersign at it in connections.toml: [email] base_url = "http://127.0.0.1:8025", token_file = "<file holding the token>".
import { parseArgs } from "node:util";
import { startGmailServer } from "./gmail-server.js";

const { values } = parseArgs({ options: { port: { type: "string", default: "8025" }, token: { type: "string", default: "dev-token" } } });
const server = await startGmailServer({ port: Number(values.port), token: values.token });
process.stdout.write(`Gmail-shaped server on ${server.url} (Bearer token: ${values.token}); Ctrl-C to stop\n`);
process.on("SIGINT", () => {
  for (const m of server.sent) process.stdout.write(`sent ${m.id} to ${m.to.join(", ")}: ${m.subject}\n`);
  void server.close().then(() => process.exit(0));
});
