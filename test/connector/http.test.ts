import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectorContext } from "../../src/config/index.js";
import type { ConnectorContext } from "../../src/connector/context.js";
import { createPluginPool, type PluginPool } from "../../src/connector/plugin-pool.js";
import { dataDirWith, runAction, shippedManifests } from "./fixtures.js";

const set = shippedManifests();

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<{ server: Server; url: string; seen: Recorded[] }> {
  const seen: Recorded[] = [];
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
    handler(req, res, body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

let api: Awaited<ReturnType<typeof listen>>;
let other: Awaited<ReturnType<typeof listen>>;
let pool: PluginPool;
let ctx: ConnectorContext;

beforeAll(async () => {
  other = await listen((_, res) => res.end("other"));
  api = await listen((req, res, body) => {
    if (req.url === "/ok") return res.writeHead(200, { "content-type": "application/json" }).end('{"hello":"world"}');
    if (req.url === "/echo")
      return res.writeHead(201, { "content-type": "text/plain" }).end(`${req.headers["content-type"]}|${body}`);
    if (req.url === "/big") return res.writeHead(200).end("x".repeat(4096));
    if (req.url === "/big-stream") {
      res.writeHead(200); // no content-length: the cap must hold while streaming
      for (let i = 0; i < 8; i++) res.write("y".repeat(1024));
      return res.end();
    }
    if (req.url === "/here") return res.writeHead(302, { location: "/ok" }).end();
    if (req.url === "/away") return res.writeHead(302, { location: `${other.url}/stolen` }).end();
    return res.writeHead(500).end("boom");
  });
  pool = createPluginPool();
  ctx = connectorContext(dataDirWith(`[http]\nhosts = ["${api.url.slice(7)}"]\n`), {
    plugins: pool,
    limits: { maxResponseBytes: 2048 },
  });
});
afterAll(async () => {
  await pool.close();
  for (const s of [api.server, other.server]) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

describe("http connector", () => {
  it("GETs an allowlisted URL", async () => {
    const result = (await runAction(set, "http.get", { url: `${api.url}/ok` }, ctx)) as {
      status: number;
      headers: Record<string, string>;
      body: string;
    };
    expect(result.status).toBe(200);
    expect(result.headers["content-type"]).toBe("application/json");
    expect(result.body).toBe('{"hello":"world"}');
  });

  it("POSTs with application/json by default and with a given content type", async () => {
    expect(await runAction(set, "http.post", { url: `${api.url}/echo`, body: "{}" }, ctx)).toMatchObject({
      status: 201,
      body: "application/json|{}",
    });
    expect(
      await runAction(set, "http.post", { url: `${api.url}/echo`, body: "a=1", content_type: "text/plain" }, ctx),
    ).toMatchObject({
      body: "text/plain|a=1",
    });
  });

  it("follows no redirect, on the same host either: the program gets the 3xx and its Location", async () => {
    api.seen.length = 0;
    expect(await runAction(set, "http.get", { url: `${api.url}/here` }, ctx)).toMatchObject({
      status: 302,
      headers: { location: "/ok" },
    });
    expect(api.seen.map((r) => r.url)).toEqual(["/here"]);
  });

  it("refuses a host outside the allowlist, sending nothing", async () => {
    await expect(runAction(set, "http.get", { url: `${other.url}/x` }, ctx)).rejects.toMatchObject({
      class: "capability_denied",
      details: { host: other.url.slice(7) },
    });
    await expect(
      runAction(set, "http.post", { url: "http://127.0.0.1.nip.io/x", body: "" }, ctx),
    ).rejects.toMatchObject({ class: "capability_denied" });
    expect(other.seen).toEqual([]);
  });

  it("does not follow a redirect to another host, which receives nothing", async () => {
    expect(await runAction(set, "http.get", { url: `${api.url}/away` }, ctx)).toMatchObject({
      status: 302,
      headers: { location: `${other.url}/stolen` },
    });
    expect(other.seen).toEqual([]);
  });

  it("refuses a response larger than the cap, declared or streamed", async () => {
    for (const path of ["/big", "/big-stream"]) {
      await expect(runAction(set, "http.get", { url: `${api.url}${path}` }, ctx)).rejects.toMatchObject({
        class: "resource_limit_exceeded",
        details: { limit_bytes: 2048 },
      });
    }
  });

  it("reports a server error as external_api_error with its status", async () => {
    await expect(runAction(set, "http.get", { url: `${api.url}/fail` }, ctx)).rejects.toMatchObject({
      class: "external_api_error",
      retriable: true,
      details: { status: 500 },
    });
  });

  it("reports an unreachable host as a retriable network_error", async () => {
    const closed = await listen(() => undefined);
    closed.server.close();
    const ctx2 = connectorContext(dataDirWith(`[http]\nhosts = ["${closed.url.slice(7)}"]\n`), { plugins: pool });
    await expect(runAction(set, "http.get", { url: `${closed.url}/` }, ctx2)).rejects.toMatchObject({
      class: "network_error",
      retriable: true,
    });
  });

  it("refuses URLs that are not absolute http(s) before the connector runs", async () => {
    api.seen.length = 0;
    for (const url of ["/ok", "ok", "ftp://127.0.0.1/ok"]) {
      await expect(runAction(set, "http.get", { url }, ctx)).rejects.toMatchObject({
        class: "grant_violation",
        details: { reason: "non_canonical", input: "url", raw: url },
      });
    }
    expect(api.seen).toEqual([]);
  });
});
