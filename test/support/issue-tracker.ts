// The example issue tracker of file-issue.ts and create_issue.toml on loopback: it records every
// request and answers like the provider (201 with the new issue's number). The example program
// and manifest name api.example.com; `localized` points them, and the policy's host list, here.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { packageRoot } from "../../src/model/paths.js";

export interface IssueTracker {
  host: string; // 127.0.0.1:port
  received: { method: string; url: string; contentType: string; body: string }[];
  close(): Promise<void>;
}

export async function startIssueTracker(): Promise<IssueTracker> {
  const received: IssueTracker["received"] = [];
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    received.push({
      method: req.method ?? "",
      url: req.url ?? "",
      contentType: req.headers["content-type"] ?? "",
      body,
    });
    res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ number: received.length }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A shipped file with the example host replaced by the tracker's (and https by http: it serves plain HTTP). */
export function localized(file: string, host: string): string {
  return readFileSync(join(packageRoot, file), "utf8")
    .replaceAll("https://api.example.com", `http://${host}`)
    .replaceAll("api.example.com", host);
}

/** A data directory that may reach the tracker: the connection's host list, and the shipped policy with its listed host changed to it. */
export function allowTracker(dataDir: string, host: string, connections = ""): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dataDir, "connections.toml"), `${connections}[http]\nhosts = ["${host}"]\n`);
  const policies = join(dataDir, "policies");
  mkdirSync(policies);
  writeFileSync(join(policies, "default.toml"), localized("policies/default.toml", host));
}
