// Run the ticket service: `npx tsx examples/receipt-service/main.ts --jwks jwks.json --issuer <iss> --connector-sha256 <hex> [--port 8026]`.
// --jwks is a file holding the authority's JWK Set (countersign serve publishes it at /.well-known/jwks.json).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startReceiptService } from "./receipt-service.js";

const { values } = parseArgs({
  options: {
    jwks: { type: "string" },
    issuer: { type: "string" },
    "connector-name": { type: "string", default: "tickets" },
    "connector-sha256": { type: "string" },
    port: { type: "string", default: "8026" },
  },
});
if (values.jwks === undefined || values.issuer === undefined || values["connector-sha256"] === undefined) {
  process.stderr.write(
    "usage: main.ts --jwks <file> --issuer <issuer> --connector-sha256 <hex> [--connector-name tickets] [--port 8026]\n",
  );
  process.exit(2);
}
const service = await startReceiptService({
  jwks: JSON.parse(readFileSync(values.jwks, "utf8")),
  issuer: values.issuer,
  connector: { name: values["connector-name"], sha256: values["connector-sha256"] },
  port: Number(values.port),
});
process.stdout.write(`receipt service on ${service.url}\n`);
process.on("SIGTERM", () => void service.close().then(() => process.exit(0)));
process.on("SIGINT", () => void service.close().then(() => process.exit(0)));
