import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import {
  checkCall,
  CLOCK_TOLERANCE_SECONDS,
  CountersignError,
  importJwks,
  MemoryRedemptionStore,
  verifyAndRedeemReceipt,
  type Json,
  type VerifiedReceipt,
} from "countersign/receipt";

/**
 * A ticket service that acts only under a countersign receipt, as a trusted wrapper outside
 * countersign would: a run starts with a receipt and the exact program bytes (verified, then
 * redeemed once), and each call of the run is admitted by the receipt's grants and counts before
 * the service does anything. A refused call changes nothing and uses up nothing.
 *
 * POST /runs             { receipt, program (base64 of the program's bytes) } -> 201 { run, jti, exp }
 * POST /runs/{run}/calls { op, args }                                        -> 200 { ticket }
 * GET  /tickets                                                              -> 200 { tickets }
 * Refusals are 403 with countersign's error envelope: { error: { class, message, details: { reason } } }.
 */

export interface ReceiptServiceOptions {
  /** The authority's JWK Set (its /.well-known/jwks.json). */
  jwks: unknown;
  /** The authority's issuer name, as configured: never taken from a receipt. */
  issuer: string;
  /** This service as receipts' grants pin it: a connector name and the hash of its code. */
  connector: { name: string; sha256: string };
  port?: number;
  now?: () => Date;
}

export interface Ticket {
  id: number;
  queue: string;
  title: string;
  body: string | null;
}

export interface ReceiptService {
  url: string;
  tickets: Ticket[];
  close(): Promise<void>;
}

/** The actions this service performs, with every input they declare (one left out is null). */
const ACTIONS: Record<string, readonly string[]> = { "tickets.create_ticket": ["queue", "title", "body"] };

const MAX_BODY_BYTES = 1024 * 1024;

const StartRunBody = z.object({ receipt: z.string(), program: z.base64() }).strict();
const CallBody = z.object({ op: z.string(), args: z.record(z.string(), z.json()) }).strict();
const CreateTicketArgs = z
  .object({ queue: z.string().min(1), title: z.string().min(1), body: z.string().nullable() })
  .strict();

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startReceiptService(opts: ReceiptServiceOptions): Promise<ReceiptService> {
  const keys = importJwks(opts.jwks);
  const now = opts.now ?? (() => new Date());
  const redemptions = new MemoryRedemptionStore(() => now().getTime());
  const runs = new Map<string, VerifiedReceipt>();
  const tickets: Ticket[] = [];

  async function route(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method === "GET" && path === "/tickets") return { status: 200, body: { tickets } };
    if (req.method === "POST" && path === "/runs") {
      const { receipt, program } = parse(StartRunBody, await readJson(req));
      const run = await verifyAndRedeemReceipt(
        receipt,
        { jwks: keys, issuer: opts.issuer, programBytes: Buffer.from(program, "base64"), now: now() },
        redemptions,
      );
      forgetExpired();
      const id = randomBytes(16).toString("base64url");
      runs.set(id, run);
      return { status: 201, body: { run: id, jti: run.claims.jti, exp: run.claims.exp } };
    }
    const call = /^\/runs\/([A-Za-z0-9_-]{22})\/calls$/.exec(path);
    if (req.method === "POST" && call !== null) {
      const run = runs.get(call[1]!);
      if (run === undefined) throw new HttpError(404, "no such run");
      const { op, args } = parse(CallBody, await readJson(req));
      const declared = ACTIONS[op];
      if (declared === undefined) throw new HttpError(404, `this service has no action ${op}`);
      const undeclared = Object.keys(args).filter((input) => !declared.includes(input));
      if (undeclared.length > 0) throw new HttpError(400, `${op} has no input ${undeclared.join(", ")}`);
      // The receipt judges the whole input record, as the action will get it.
      const full: Record<string, Json> = Object.fromEntries(
        declared.map((input) => [input, Object.hasOwn(args, input) ? (args[input] as Json) : null]),
      );
      const input = parse(CreateTicketArgs, full); // a call the service cannot make is refused before it counts
      checkCall(run, { op, connector: opts.connector, args: full }, now());
      const ticket = { id: tickets.length + 1, ...input };
      tickets.push(ticket);
      return { status: 200, body: { ticket } };
    }
    throw new HttpError(404, "not found");
  }

  /** A run is kept as long as its receipt can admit a call. */
  function forgetExpired(): void {
    const seconds = now().getTime() / 1000 - CLOCK_TOLERANCE_SECONDS;
    for (const [id, run] of runs) if (run.claims.exp <= seconds) runs.delete(id);
  }

  const server = createServer((req, res) => {
    route(req).then(
      ({ status, body }) => send(res, status, body),
      (err: unknown) => {
        if (err instanceof CountersignError)
          return send(
            res,
            err.class === "receipt_invalid" || err.class === "grant_violation" ? 403 : 400,
            err.toEnvelope(),
          );
        if (err instanceof HttpError) return send(res, err.status, { error: { message: err.message } });
        send(res, 500, { error: { message: "internal error" } });
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    tickets,
    close: () => new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpError(400, z.prettifyError(parsed.error));
  return parsed.data;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/.test(req.headers["content-type"] ?? ""))
    throw new HttpError(415, "the body must be application/json");
  if (Number(req.headers["content-length"] ?? 0) > MAX_BODY_BYTES)
    throw new HttpError(413, `the body is larger than ${MAX_BODY_BYTES} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "the body is not JSON");
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  // A body left unread (too large) is not read on: the connection closes after the answer.
  const close = status === 413 ? { connection: "close" } : {};
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...close });
  res.end(text);
}
