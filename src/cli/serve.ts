import { join, resolve } from "node:path";
import type { InitResult } from "../app/index.js";
import { describeReload, startAuthority, DEFAULT_HOST, DEFAULT_PORT, type McpEndpoint } from "../authority/index.js";
// a light entry: the config index loads the manifests and policy
import { dataDir, homeDir } from "../config/data-dir.js";
import { isPostgresUrl, openStore, redactUrl, SQLITE_FILE } from "../store/index.js";
import { EXIT, shownPath, usageError, type Command, type Io } from "./command.js";
import { parseFlags } from "./parse-flags.js";
import { databaseFlag } from "./store-flag.js";

const usage = `usage: countersign serve [--host HOST] [--port PORT] [--manifests DIR] [--policies DIR]
                         [--database URL|FILE] [--workers N] [--json]

Run the authority: agents submit programs (POST /v1/requests with their submitter token), it
analyzes and decides each, keeps requests, decisions and receipts in its store, and signs receipts.
Binds 127.0.0.1:8765 by default. The store is the data directory's SQLite file, or PostgreSQL with
--database postgres://... (also $COUNTERSIGN_DATABASE); several authorities may share one.
On first start it fills $COUNTERSIGN_HOME (signing key, submitter.token, approver secret,
connections.toml, a policy to edit). SIGHUP (or POST /v1/reload) reloads manifests and policy;
a policy that fails to load keeps the old one in force. \`countersign ui\` prints a login link.`;

/** `countersign serve`: the authority, until SIGINT or SIGTERM. */
const command: Command = {
  usage,
  async run(argv, io) {
    const { values, positionals } = parseFlags({
      args: argv,
      allowPositionals: true,
      options: {
        host: { type: "string" },
        port: { type: "string" },
        manifests: { type: "string" },
        policies: { type: "string" },
        database: { type: "string" },
        workers: { type: "string" },
        json: { type: "boolean" },
      },
    });
    if (positionals.length > 0) throw usageError(`unexpected argument "${positionals[0]}"`);
    const port = values.port === undefined ? DEFAULT_PORT : wholeNumber(values.port, "--port", 0, 65_535);
    const workers = values.workers === undefined ? undefined : wholeNumber(values.workers, "--workers", 1, 64);
    const data = dataDir(io.env);
    const { database } = databaseFlag(io, values.database);
    const store = await openStore({ dataDir: data, ...(database === undefined ? {} : { database }) });
    const log = (line: string): void => io.stderr(`countersign serve: ${line}\n`);
    const storeText =
      database === undefined
        ? `SQLite ${shownPath(io, join(data, SQLITE_FILE))}`
        : isPostgresUrl(database)
          ? `PostgreSQL ${redactUrl(database)}`
          : `SQLite ${shownPath(io, database)}`;
    // Printed as soon as it listens: /healthz answers from then on, and the rest loads behind it.
    let authorityUrl = "";
    const onListening = ({ url, init, threads }: { url: string; init: InitResult; threads: number }): void => {
      authorityUrl = url;
      if (values.json === true) {
        io.stdout(
          JSON.stringify({
            url,
            data_dir: data,
            store: storeText,
            analysis_threads: threads,
            token_file: init.tokenFile ?? null,
            created: init.created,
          }) + "\n",
        );
        return;
      }
      const tokenLine =
        init.tokenFile === undefined
          ? "submitter tokens: countersign token list | add NAME"
          : `submitter token: ${init.tokenFile} (made now: give it to your agent as Authorization: Bearer <token>)`;
      io.stdout(
        [
          `countersign authority at ${url}`,
          `  data: ${data}; store: ${storeText}; ${threads} analysis thread${threads === 1 ? "" : "s"}`,
          `  ${tokenLine}`,
          `  log in: countersign ui  (prints a one-time login link)`,
          "",
        ].join("\n"),
      );
    };
    // A stop asked for while the routes load (the URL is printed before) waits for them, then stops cleanly.
    const { stopped, cancel } = stopSignal();
    // MCP at /mcp: the tools of `countersign mcp`, run here, each session reaching this authority with its agent's
    // token.
    const mcp = mcpEndpoint(
      io,
      { database, manifests: values.manifests, policies: values.policies },
      () => authorityUrl,
    );
    const authority = await startAuthority({
      mcp,
      dataDir: data,
      home: homeDir(io.env),
      store,
      host: values.host ?? DEFAULT_HOST,
      port,
      log,
      onListening,
      ...(values.manifests === undefined ? {} : { manifests: resolve(io.cwd, values.manifests) }),
      ...(values.policies === undefined ? {} : { policies: resolve(io.cwd, values.policies) }),
      ...(workers === undefined ? {} : { poolSize: workers }),
    }).catch(async (err: unknown) => {
      cancel();
      await store.close().catch(() => undefined);
      throw err;
    });
    return serveUntilStopped(authority, stopped, io, log);
  },
};

/**
 * MCP over Streamable HTTP, loaded at its first request (the use cases, the MCP SDK and the
 * runner's context are not needed to start listening). Each session's tools reach the authority
 * at `url` with the token that opened it.
 */
function mcpEndpoint(
  io: Io,
  paths: { database: string | undefined; manifests: string | undefined; policies: string | undefined },
  url: () => string,
): McpEndpoint {
  let loading: Promise<McpEndpoint> | undefined;
  const load = (): Promise<McpEndpoint> =>
    (loading ??= (async () => {
      const [{ localContext }, { httpMcpEndpoint }, { httpAuthority }, { packageVersion }] = await Promise.all([
        import("../app/index.js"),
        import("../mcp/index.js"),
        import("./http-authority.js"),
        import("../config/index.js"),
      ]);
      let runner: ReturnType<typeof localContext> | undefined;
      const context = () =>
        (runner ??= localContext(io.env, {
          ...(paths.database === undefined ? {} : { database: paths.database }),
          ...(paths.manifests === undefined ? {} : { manifests: resolve(io.cwd, paths.manifests) }),
          ...(paths.policies === undefined ? {} : { policies: resolve(io.cwd, paths.policies) }),
        }));
      const endpoint = httpMcpEndpoint({
        context,
        version: packageVersion(),
        authority: (token) => httpAuthority({ url: url(), token }),
      });
      return {
        handle: endpoint.handle,
        close: async () => void (await Promise.all([endpoint.close(), runner?.close()])),
      };
    })());
  return {
    handle: async (request, call) => (await load()).handle(request, call),
    close: async () => {
      if (loading !== undefined) await (await loading).close();
    },
  };
}

function wholeNumber(text: string, flag: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(text) || Number(text) < min || Number(text) > max)
    throw usageError(`${flag} must be a whole number from ${min} to ${max}, not "${text}"`);
  return Number(text);
}

/**
 * `stopped` resolves at the first SIGINT or SIGTERM, listened for from now on so that one that
 * comes while serve starts is not lost; `cancel` stops listening (a start that failed).
 */
function stopSignal(): { stopped: Promise<void>; cancel: () => void } {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const cancel = (): void => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return { stopped: stopped.then(cancel), cancel };
}

/** Reload on SIGHUP; stop cleanly once `stopped` (pending requests stay in the store for the next start). */
async function serveUntilStopped(
  authority: Awaited<ReturnType<typeof startAuthority>>,
  stopped: Promise<void>,
  io: Io,
  log: (line: string) => void,
): Promise<number> {
  const onHangup = (): void => {
    authority.state.reload("authority (SIGHUP)").then(
      (r) => log(describeReload(r)),
      (err: unknown) => log(`reload failed: ${(err as Error).message}`),
    );
  };
  process.on("SIGHUP", onHangup);
  await stopped;
  process.off("SIGHUP", onHangup);
  io.stderr("countersign serve: stopping\n");
  await authority.close();
  return EXIT.ok;
}

export default command;
