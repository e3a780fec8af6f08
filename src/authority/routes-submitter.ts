import type { Hono } from "hono";
import {
  authorityContext,
  checkProgram,
  issueRequestReceipt,
  readHandle,
  readRequest,
  recordRunOutput,
  redeemReceipt,
  reviewRequest,
  submitRequest,
  withdrawRequest,
  type ProgramInput,
} from "../app/index.js";
import { CheckBody, Json, RedeemBody, RunOutputBody, SubmitBody } from "../model/index.js";
import type { AppDeps, AuthorityEnv } from "./deps.js";
import { eitherAuth, recheckSubmitter, submitterAuth } from "./guards.js";
import { badRequest } from "./http-error.js";
import { jsonNestedDeeper, jsonText } from "./json-text.js";
import { readBody } from "./read-body.js";
import { approverView, submitterView } from "./views.js";

/**
 * A run's output: the value (at most the sandbox's cap, 64 KiB by default) and its console output
 * (1 MiB by default), each JSON-escaped.
 */
export const MAX_OUTPUT_BODY_BYTES = 4 * 1024 * 1024;
/** How deep a returned value may nest to be recorded (and so shown): deeper than any data an agent reads. */
export const MAX_VALUE_DEPTH = 64;

/** The longest a decision long-poll waits. */
export const MAX_WAIT_SECONDS = 60;

const DEFAULT_SOURCE_NAME = "program.ts";

/**
 * A compact JWS is base64url and dots, none of which JSON escapes: its JSON string is itself in quotes (JSON.stringify
 * took longer to scan it).
 */
const COMPACT_JWS = /^[A-Za-z0-9_.-]*$/;

/**
 * The agent's routes: submit, check, read and withdraw its own requests, wait for a decision, redeem a receipt, hand in
 * a run's output, read its held values.
 */
export function submitterRoutes(app: Hono<AuthorityEnv>, deps: AppDeps): void {
  const ctx = deps.state.ctx;
  const submitter = submitterAuth(deps);
  const either = eitherAuth(deps);

  app.post("/v1/requests", submitter, async (c) => {
    const body = await readBody(c, SubmitBody, deps.maxBodyBytes);
    const { request, receipt } = await submitRequest(ctx, {
      token: c.get("submitter"),
      program: programOf(body),
      ...(body.rationale === undefined ? {} : { rationale: body.rationale }),
      ...(body.timeout_s === undefined ? {} : { deadlineSeconds: body.timeout_s }),
    });
    if (request.status === "pending")
      return c.json({ id: request.id, status: "pending", review_url: `${deps.baseUrl()}/requests/${request.id}` }, 202);
    // The text c.json would write, the decision's part remembered (json-text.ts).
    const s = JSON.stringify;
    const receiptPart =
      receipt === undefined ? "" : `,"receipt":${COMPACT_JWS.test(receipt) ? `"${receipt}"` : s(receipt)}`;
    return c.body(
      `{"id":${s(request.id)},"status":${s(request.status)},"decision":${jsonText(request.policy)}${receiptPart}}`,
      200,
      { "content-type": "application/json" },
    );
  });

  app.post("/v1/check", submitter, async (c) => {
    const body = await readBody(c, CheckBody, deps.maxBodyBytes);
    // A dry run reports a refused program as `countersign check` does: its facts, diagnostics included.
    return c.json(await checkProgram(ctx, programOf(body), c.get("submitter")));
  });

  app.get("/v1/context", submitter, async (c) => c.json(await authorityContext(ctx, c.get("submitter"))));

  app.get("/v1/requests/:id", either, async (c) => {
    const submitterName = c.get("submitter");
    if (submitterName !== undefined)
      return c.json(submitterView(await readRequest(ctx, c.req.param("id"), submitterName)));
    const { request, remember, previews, binding } = await reviewRequest(
      ctx,
      c.req.param("id"),
      c.get("approver").approver,
    );
    c.header("cache-control", "no-store"); // previews are fetched for each showing, never kept
    return c.json(approverView(request, remember, previews, binding));
  });

  app.get("/v1/requests/:id/decision", either, async (c) => {
    const id = c.req.param("id");
    const submitterName = c.get("submitter");
    const wait = waitSeconds(c.req.query("wait"));
    const deadline = Date.now() + wait * 1000;
    let request = await readRequest(ctx, id, submitterName);
    // Registered before each read, so that a change between the read and the wait is not missed;
    // woken by any change event of the request (its own submission's too), then read again.
    while (request.status === "pending" && Date.now() < deadline && !c.req.raw.signal.aborted) {
      const change = await deps.waiter.register(id);
      try {
        request = await readRequest(ctx, id, submitterName);
        if (request.status === "pending") await change.wait(deadline - Date.now(), c.req.raw.signal);
      } finally {
        change.cancel();
      }
      request = await readRequest(ctx, id, submitterName);
    }
    if (submitterName !== undefined && wait > 0) await recheckSubmitter(c, deps);
    const view = submitterName === undefined ? approverView(request) : submitterView(request);
    const body = { id: request.id, status: request.status, decision: view.decision, policy: view.policy };
    // The receipt goes to the submitter alone: signed when it first asks (so it has its whole lifetime to run), the
    // same one while it is valid.
    if (submitterName !== undefined && request.status === "approved")
      return c.json({ ...body, receipt: await issueRequestReceipt(ctx, id, { token: submitterName }) });
    return c.json(body);
  });

  app.post("/v1/requests/:id/withdraw", submitter, async (c) => {
    return c.json(submitterView(await withdrawRequest(ctx, c.req.param("id"), c.get("submitter"))));
  });

  app.post("/v1/requests/:id/output", submitter, async (c) => {
    const { value_json, ...rest } = await readBody(c, RunOutputBody, MAX_OUTPUT_BODY_BYTES);
    return c.json(
      await recordRunOutput(ctx, c.get("submitter"), c.req.param("id"), { ...rest, value: parsedValue(value_json) }),
    );
  });

  // A held value, for the runner of a program that takes it up with fromHandle: its own submitter's only.
  app.get("/v1/handles/:id", submitter, async (c) =>
    c.json(await readHandle(ctx, c.req.param("id"), c.get("submitter"))),
  );

  app.post("/v1/receipts/:jti/redeem", submitter, async (c) => {
    const { exp } = await readBody(c, RedeemBody, deps.maxBodyBytes);
    const jti = c.req.param("jti");
    await redeemReceipt(ctx, jti, exp, c.get("submitter"));
    return c.json({ jti, redeemed: true });
  });
}

/** The program of a submit or check body, with the agent manifests it came with. */
function programOf(body: CheckBody): ProgramInput {
  return {
    source: body.program,
    entry: body.source_name ?? DEFAULT_SOURCE_NAME,
    ...(body.manifests === undefined ? {} : { manifests: body.manifests }),
  };
}

/**
 * The value of a run's output from its JSON text: 400 for text that is not JSON, or nests deeper than MAX_VALUE_DEPTH.
 */
function parsedValue(text: string): Json {
  if (jsonNestedDeeper(text, MAX_VALUE_DEPTH))
    throw badRequest(
      `value_json is nested more than ${MAX_VALUE_DEPTH} levels deep: such a value is not recorded, nor shown`,
      "too_deep",
      { max_depth: MAX_VALUE_DEPTH },
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badRequest(`value_json is not JSON: ${(err as Error).message}`, "malformed");
  }
  const parsed = Json.safeParse(value);
  if (!parsed.success) throw badRequest("value_json is not plain JSON data", "invalid");
  return parsed.data;
}

function waitSeconds(text: string | undefined): number {
  if (text === undefined) return 0;
  if (!/^[0-9]{1,4}$/.test(text) || Number(text) > MAX_WAIT_SECONDS)
    throw badRequest(`wait must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}`, "invalid");
  return Number(text);
}
