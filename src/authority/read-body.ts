import type { Context } from "hono";
import type { z } from "zod";
import { badRequest } from "./http-error.js";

/**
 * The request's JSON body, checked against its schema: JSON only (415 otherwise, which also
 * keeps a cross-site form from posting here without a preflight), parse errors and every
 * refused field named (400). The size limit was applied before (413).
 */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw badRequest(`the body must be JSON (Content-Type: application/json), not ${JSON.stringify(type)}`, "unsupported_media_type");
  }
  let value: unknown;
  try {
    value = JSON.parse(await c.req.text());
  } catch (err) {
    throw badRequest(`the body is not valid JSON: ${(err as Error).message}`, "malformed");
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  const first = issues[0]!;
  throw badRequest(`invalid body${first.path === "" ? "" : ` at ${first.path}`}: ${first.message}`, "invalid", { issues });
}
