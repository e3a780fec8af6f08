import { serve } from "@hono/node-server";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { initDataDir, type InitResult } from "../app/index.js";
import { fileKeyStore, loadLocalAuthority, readApproverSecret, writeLocalAuthority, type Store } from "../store/index.js";
import { AuthorityState, type StateOptions } from "./authority-state.js";
import { createApp, DEFAULT_MAX_BODY_BYTES } from "./create-app.js";
import { DecisionWaiter } from "./decision-waiter.js";
import type { McpEndpoint } from "./deps.js";

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 8765;

export interface AuthorityOptions extends Omit<StateOptions, "issuer"> {
  store: Store; // opened by the caller (serve: --database), closed by close()
  host?: string;
  port?: number; // 0: any free port
  allowedHosts?: string[]; // more Host names to answer to (e.g. behind a proxy), host:port
  maxBodyBytes?: number;
  expirySweepMs?: number;
  log?: (line: string) => void;
  mcp?: McpEndpoint; // MCP over Streamable HTTP at /mcp
}

export interface Authority {
  url: string;
  port: number;
  init: InitResult;
  state: AuthorityState;
  /** Resolves once the analysis threads are ready (they start after the listener; programs submitted before wait for them). */
  warmed: Promise<void>;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/**
 * Start `countersign serve`: make what the data directory lacks, listen, record the URL in
 * authority.json for `check` and `run`, then start the analysis threads, which take seconds to
 * load the compiler: the server answers meanwhile, and programs wait for a thread. Pending
 * requests expire on a timer; long polls wake on the store's change events.
 */
export async function startAuthority(options: AuthorityOptions): Promise<Authority> {
  const log = options.log ?? ((line: string) => process.stderr.write(`countersign serve: ${line}\n`));
  const now = options.now ?? (() => new Date());
  const init = await initDataDir({ dataDir: options.dataDir, keys: fileKeyStore(options.dataDir), now, store: async () => options.store });
  const state = AuthorityState.open({ ...options, issuer: loadLocalAuthority(options.dataDir).issuer }, options.store);
  const secret = readApproverSecret(options.dataDir);
  const waiter = new DecisionWaiter(options.store, (err) => log(`change events: ${(err as Error).message}`));
  const host = options.host ?? DEFAULT_HOST;
  const allowedHosts = new Set<string>();
  const ownOrigins = new Set<string>();
  let url = "";
  const app = await createApp({ state, secret, allowedHosts, ownOrigins, baseUrl: () => url, waiter, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, log, ...(options.mcp === undefined ? {} : { mcp: options.mcp }) });
  let server: Server;
  try {
    server = await new Promise<Server>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, hostname: host, port: options.port ?? DEFAULT_PORT }, () => resolve(s as Server)) as Server;
      s.once("error", reject);
    });
  } catch (err) {
    await options.mcp?.close();
    await waiter.close();
    await state.close();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const names = LOOPBACK.has(host) ? ["127.0.0.1", "localhost", "[::1]"] : [host.includes(":") ? `[${host}]` : host];
  for (const name of names) allowedHosts.add(`${name}:${port}`);
  for (const extra of options.allowedHosts ?? []) allowedHosts.add(extra.toLowerCase());
  // This authority speaks http: an https page on the same host and port is another origin.
  for (const name of allowedHosts) ownOrigins.add(new URL(`http://${name}`).origin);
  url = `http://${names[0]}:${port}`;
  writeLocalAuthority(options.dataDir, { url });
  const sweep = setInterval(() => {
    options.store.expireDue().catch((err: unknown) => log(`expiring requests failed: ${(err as Error).message}`));
  }, options.expirySweepMs ?? 1000);
  sweep.unref();
  let closing = false;
  const warmed = state.pool.warm();
  warmed.catch((err: unknown) => {
    if (!closing) log(`analysis threads: ${(err as Error).message} (the next program starts a new one)`);
  });
  return {
    url,
    port,
    init,
    state,
    warmed,
    async close() {
      closing = true;
      clearInterval(sweep);
      await options.mcp?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // long polls and event streams end now
      });
      await waiter.close();
      await state.close();
      await options.store.close();
    },
  };
}
