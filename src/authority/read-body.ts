import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import type { z } from "zod";
import { CountersignError } from "../model/index.js";
import type { AuthorityEnv } from "./deps.js";
import { badRequest } from "./http-error.js";
import { jsonNestedDeeper } from "./json-text.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The most arrays and objects a body may open at once: the deepest valid body (a submission's manifests) needs 3. */
export const MAX_BODY_DEPTH = 8;

/**
 * The request's JSON body, checked against its schema: JSON only (415 otherwise, which also keeps
 * a cross-site form from posting here without a preflight), at most `limit` bytes (413, from the
 * Content-Length before anything is read, or as soon as a chunked body passes it), UTF-8, nesting
 * no deeper than MAX_BODY_DEPTH, parse errors and every refused field named (400). Read straight from the Node request:
 * no web stream
 * in between.
 */
export async function readBody<S extends z.ZodType>(
  c: Context<AuthorityEnv>,
  schema: S,
  limit: number,
): Promise<z.infer<S>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw badRequest(
      `the body must be JSON (Content-Type: application/json), not ${JSON.stringify(type)}`,
      "unsupported_media_type",
    );
  }
  let value: unknown;
  try {
    const text = await readText(c, limit);
    // Deep nesting costs JSON.parse time on the event loop and no valid body has it: refused unparsed.
    if (jsonNestedDeeper(text, MAX_BODY_DEPTH))
      throw badRequest(
        `the body is nested more than ${MAX_BODY_DEPTH} levels deep; no body of this API nests that deep`,
        "too_deep",
        { max_depth: MAX_BODY_DEPTH },
      );
    value = JSON.parse(text);
  } catch (err) {
    if (err instanceof CountersignError) throw err;
    throw badRequest(`the body is not valid JSON: ${(err as Error).message}`, "malformed");
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  const first = issues[0]!;
  throw badRequest(`invalid body${first.path === "" ? "" : ` at ${first.path}`}: ${first.message}`, "invalid", {
    issues,
  });
}

/** The raw body as UTF-8 text, within `limit` bytes (413 past it). */
export async function readText(c: Context<AuthorityEnv>, limit: number): Promise<string> {
  const tooLarge = () =>
    new CountersignError("resource_limit_exceeded", "authority", `the body is larger than ${limit} bytes`, {
      details: { reason: "too_large", limit },
    });
  if (Number(c.req.header("content-length") ?? 0) > limit) throw tooLarge();
  const body = await readAll(c.env.incoming, limit, tooLarge);
  try {
    return utf8.decode(body);
  } catch {
    throw badRequest("the body is not valid UTF-8", "malformed");
  }
}

/**
 * Every byte of `incoming`, by its events (an async iterator per request cost more than the read); past `limit` it
 * stops reading and fails.
 */
function readAll(incoming: IncomingMessage, limit: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err?: Error) => {
      incoming.off("data", onData).off("end", onEnd).off("error", done).off("close", onClose);
      if (err === undefined) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      else {
        // the rest of an oversized body is never read here (the server drains a bounded amount, then closes)
        incoming.pause();
        reject(err);
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) done(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => done();
    const onClose = () => done(new Error("the request was closed before its body ended"));
    incoming.on("data", onData).on("end", onEnd).on("error", done).on("close", onClose);
  });
}
