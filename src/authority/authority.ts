import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { InitResult } from "../app/index.js";
import {
  fileKeyStore,
  loadLocalAuthority,
  readApproverSecret,
  writeLocalAuthority,
  type Store,
} from "../store/index.js";
import type { AuthorityState, StateOptions } from "./authority-state.js";
import type { DecisionWaiter } from "./decision-waiter.js";
import { analysisThreads, DEFAULT_MAX_BODY_BYTES } from "./limits.js";
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
  /** Called once it listens, before the routes have loaded: what `serve` prints. */
  onListening?: (started: { url: string; init: InitResult; threads: number }) => void;
  mcp?: McpEndpoint; // MCP over Streamable HTTP at /mcp
}

export interface Authority {
  url: string;
  port: number;
  init: InitResult;
  state: AuthorityState;
  /**
   * Resolves once the analysis threads are ready (they start after the listener; programs submitted before wait for
   * them).
   */
  warmed: Promise<void>;
  close(): Promise<void>;
}

type Handler = (incoming: IncomingMessage, outgoing: ServerResponse) => void;

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/**
 * Start `countersign serve`: make what the data directory lacks, listen, record the URL in
 * authority.json for `check` and `run`, and only then load the routes, the use cases and the
 * configuration (the compiler comes with them), then start the analysis threads, which take
 * seconds to load the compiler. Until the routes are in place the listener answers `GET
 * /healthz` as starting and holds every other request for them; programs wait for a thread.
 * Pending requests expire on a timer; long polls wake on the store's change events.
 */
export async function startAuthority(options: AuthorityOptions): Promise<Authority> {
  const log = options.log ?? ((line: string) => process.stderr.write(`countersign serve: ${line}\n`));
  const now = options.now ?? (() => new Date());
  const { initDataDir } = await import("../app/init-data-dir.js");
  const init = await initDataDir({
    dataDir: options.dataDir,
    keys: fileKeyStore(options.dataDir),
    now,
    store: async () => options.store,
  });
  const secret = readApproverSecret(options.dataDir);
  const host = options.host ?? DEFAULT_HOST;
  const allowedHosts = new Set<string>();
  const ownOrigins = new Set<string>();
  let url = "";
  let loaded: (handler: Handler) => void;
  const routes = new Promise<Handler>((resolve) => (loaded = resolve));
  let handler: Handler = (incoming, outgoing) => {
    if (
      incoming.method === "GET" &&
      incoming.url === "/healthz" &&
      allowedHosts.has(incoming.headers.host?.toLowerCase() ?? "")
    ) {
      outgoing.writeHead(200, {
        "content-type": "application/json",
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      });
      outgoing.end(JSON.stringify({ ok: true, status: "starting" }));
    } else void routes.then((h) => h(incoming, outgoing));
  };
  const server = createServer((incoming, outgoing) => handler(incoming, outgoing));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? DEFAULT_PORT, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const closeServer = (): Promise<void> =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections(); // long polls and event streams end now
    });
  const port = (server.address() as AddressInfo).port;
  const names = LOOPBACK.has(host) ? ["127.0.0.1", "localhost", "[::1]"] : [host.includes(":") ? `[${host}]` : host];
  for (const name of names) allowedHosts.add(`${name}:${port}`);
  for (const extra of options.allowedHosts ?? []) allowedHosts.add(extra.toLowerCase());
  // This authority speaks http: an https page on the same host and port is another origin.
  for (const name of allowedHosts) ownOrigins.add(new URL(`http://${name}`).origin);
  url = `http://${names[0]}:${port}`;
  writeLocalAuthority(options.dataDir, { url });
  options.onListening?.({ url, init, threads: analysisThreads(options.poolSize) });

  let state: AuthorityState;
  let signHead: () => Promise<unknown>;
  let waiter: DecisionWaiter | undefined;
  try {
    const [
      { AuthorityState },
      { createApp },
      { DecisionWaiter: Waiter },
      { getRequestListener },
      { checkpointAuditChain },
    ] = await Promise.all([
      import("./authority-state.js"),
      import("./create-app.js"),
      import("./decision-waiter.js"),
      import("@hono/node-server"),
      import("../app/checkpoint-audit-chain.js"),
    ]);
    state = AuthorityState.open({ ...options, issuer: loadLocalAuthority(options.dataDir).issuer }, options.store);
    waiter = new Waiter(options.store, (err) => log(`change events: ${(err as Error).message}`));
    const app = await createApp({
      state,
      secret,
      allowedHosts,
      ownOrigins,
      baseUrl: () => url,
      waiter,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      log,
      ...(options.mcp === undefined ? {} : { mcp: options.mcp }),
    });
    handler = getRequestListener(app.fetch, { hostname: host });
    signHead = () => checkpointAuditChain(state.ctx);
  } catch (err) {
    // nothing answers here: the held requests end with the connections
    await closeServer();
    await options.mcp?.close();
    await waiter?.close();
    throw err;
  }
  loaded!(handler);
  const sweep = setInterval(() => {
    options.store.expireDue().catch((err: unknown) => log(`expiring requests failed: ${(err as Error).message}`));
    signHead().catch((err: unknown) => log(`signing the audit chain failed: ${(err as Error).message}`));
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
      await closeServer();
      await waiter!.close();
      await state.close();
      await options.store.close();
    },
  };
}
