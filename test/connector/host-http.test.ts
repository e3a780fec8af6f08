import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Capabilities } from "../../src/connector/capabilities.js";
import { httpRequest } from "../../src/connector/host-http.js";
import { DEFAULT_LIMITS } from "../../src/connector/limits.js";

let server: Server;
let seen: IncomingMessage["headers"][] = [];
let host: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    res.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const signal = new AbortController().signal;
const caps = (baseUrl: string | null, hosts: string[]): Capabilities => ({
  connector: "t",
  hosts: new Set(hosts),
  baseUrl: baseUrl === null ? null : new URL(baseUrl),
  credential: { header: "Authorization", value: async () => "Bearer s3cret", renew: null },
  roots: [],
  secrets: [],
});

describe("http_request host function", () => {
  it("adds the credential on the base_url's host and replaces any the plugin set", async () => {
    seen = [];
    await httpRequest(
      caps(`http://${host}`, [host]),
      DEFAULT_LIMITS,
      { method: "GET", url: "/x", headers: { authorization: "Bearer forged", "x-a": "1" } },
      signal,
    );
    expect(seen[0]).toMatchObject({ authorization: "Bearer s3cret", "x-a": "1" });
  });

  it("sends no credential to another allowed host", async () => {
    seen = [];
    await httpRequest(
      caps("http://api.example.com", ["api.example.com:80", host]),
      DEFAULT_LIMITS,
      { method: "GET", url: `http://${host}/x`, headers: {} },
      signal,
    );
    expect(seen[0]?.authorization).toBeUndefined();
  });

  it("refuses a protocol-relative path that would leave the base_url's host", async () => {
    await expect(
      httpRequest(
        caps(`http://${host}`, [host]),
        DEFAULT_LIMITS,
        { method: "GET", url: "//evil.example.com/x", headers: {} },
        signal,
      ),
    ).rejects.toMatchObject({ class: "capability_denied", details: { url: "//evil.example.com/x" } });
  });

  it("refuses a plugin's URL that is not in canonical form, sending nothing", async () => {
    seen = [];
    for (const url of [
      "/a/../b",
      "/a/%2e%2e/b",
      "/a/..%2fb",
      "/a\\..\\b",
      "/a/\t../b",
      `http://${host}/a/../b`,
      `http://${host}/a/./b`,
      `http://${host}/a b`,
    ]) {
      await expect(
        httpRequest(caps(`http://${host}`, [host]), DEFAULT_LIMITS, { method: "GET", url, headers: {} }, signal),
        JSON.stringify(url),
      ).rejects.toMatchObject({ class: "capability_denied" });
    }
    expect(seen).toEqual([]);
  });

  it("refuses relative URLs without a base_url, other schemes and URLs with credentials", async () => {
    for (const url of ["/x", "file:///etc/passwd", `http://u:p@${host}/`]) {
      await expect(
        httpRequest(caps(null, [host]), DEFAULT_LIMITS, { method: "GET", url, headers: {} }, signal),
      ).rejects.toMatchObject({ class: "capability_denied" });
    }
  });
});
