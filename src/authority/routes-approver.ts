import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Hono } from "hono";
import {
  answerRequestQuestion,
  decideRequest,
  listGlance,
  listRequests,
  requestPage,
  reviewRequest,
  verifyAuditLog,
  visibleText,
  type Verdict,
} from "../app/index.js";
import { DecisionBody, ListParams, QuestionBody, type QuestionAnswer, type StoreEvent } from "../model/index.js";
import { describeReload } from "./reload-result.js";
import type { AppDeps, AuthorityEnv } from "./deps.js";
import { EventStream, eventsBytes, KEEPALIVE } from "./event-stream.js";
import { approverAuth } from "./guards.js";
import { badRequest } from "./http-error.js";
import { readBody } from "./read-body.js";
import { csrfToken } from "./session.js";
import { approverView } from "./views.js";

/** How often an idle event stream gets a keepalive comment. */
const KEEPALIVE_MS = 15_000;

/** The person's routes: the queue, decisions, live events, the audit log, reload. */
export function approverRoutes(app: Hono<AuthorityEnv>, deps: AppDeps): void {
  const ctx = deps.state.ctx;
  const approver = approverAuth(deps);

  app.get("/v1/session", approver, (c) => {
    const session = c.get("approver");
    return c.json({
      approver: session.approver,
      expires_at: new Date(session.expires).toISOString(),
      csrf_token: csrfToken(deps.secret, session),
    });
  });

  app.get("/v1/requests", approver, async (c) => {
    const parsed = ListParams.safeParse(c.req.query());
    if (!parsed.success)
      throw badRequest(
        `invalid query: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
        "invalid",
      );
    const { status, limit, cursor } = parsed.data;
    const page = await listRequests(ctx, {
      ...(status === undefined ? {} : { status }),
      ...(limit === undefined ? {} : { limit }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    // Each row with its headline and risks, as the inbox shows them (no preview is fetched for a list).
    const glance = listGlance(ctx);
    return c.json({
      requests: page.requests.map((r) => ({ ...approverView(r), ...glance(r) })),
      ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
    });
  });

  // The request page's content as data, for an approval surface of its own (the terminal approver): the same order,
  // already made visible.
  app.get("/v1/requests/:id/page", approver, async (c) =>
    c.json(requestPage(await reviewRequest(ctx, c.req.param("id"), c.get("approver").approver))),
  );

  // A question about a request, answered from its facts (and what the person is shown) or not at all: never sent to the
  // agent, never a decision.
  app.post("/v1/requests/:id/question", approver, async (c) => {
    const body = await readBody(c, QuestionBody, deps.maxBodyBytes);
    const answer = await answerRequestQuestion(ctx, c.req.param("id"), body.question, {
      approver: c.get("approver").approver,
    });
    const shown: QuestionAnswer =
      answer === null
        ? { answered: false }
        : { answered: true, question: visibleText(answer.question), lines: answer.lines.map(visibleText) };
    return c.json(shown);
  });

  app.post("/v1/requests/:id/decision", approver, async (c) => {
    const body = await readBody(c, DecisionBody, deps.maxBodyBytes);
    const who = c.get("approver").approver;
    const shown = body.shown === undefined ? {} : { shown: body.shown };
    const verdict: Verdict =
      body.decision === "rejected"
        ? { kind: "rejected", approver: who, reason: body.reason! }
        : body.decision === "request_more"
          ? { kind: "request_more", approver: who, feedback: body.feedback! }
          : body.decision === "approved_remember"
            ? {
                kind: "approved_remember",
                approver: who,
                ...shown,
                ...(body.scope === undefined ? {} : { scope: body.scope }),
                ...(body.lifetime === undefined ? {} : { lifetime: body.lifetime }),
              }
            : { kind: "approved_once", approver: who, ...shown };
    const { request, changed } = await decideRequest(ctx, c.req.param("id"), verdict);
    return c.json({ ...approverView(request), changed });
  });

  app.get("/v1/events", approver, async (c) => {
    const after = lastEventId(c.req.header("last-event-id") ?? c.req.query("last_event_id"));
    const session = c.get("approver");
    const early: (readonly StoreEvent[])[] = []; // what arrives before the stream is open
    let stream: EventStream | undefined;
    // A stream carries events only while the session that opened it is valid.
    const send = (bytes: Uint8Array): void =>
      void (Date.now() < session.expires ? stream!.write(bytes) : stream!.close());
    const unsubscribe = await deps.state.store.subscribe(
      (batch) => (stream === undefined ? early.push(batch) : send(eventsBytes(batch))),
      {
        ...(after === undefined ? {} : { after }),
        onError: (err) => deps.log(`events: ${(err as Error).message}`),
      },
    );
    const keepalive = setInterval(() => send(KEEPALIVE), KEEPALIVE_MS);
    stream = new EventStream(c.env.outgoing, () => {
      clearInterval(keepalive);
      unsubscribe().catch((err: unknown) => deps.log(`events: ${(err as Error).message}`));
    });
    for (const batch of early) send(eventsBytes(batch));
    return RESPONSE_ALREADY_SENT; // the stream writes the response itself
  });

  app.get("/v1/audit", approver, (c) => {
    c.header("content-type", "application/x-ndjson; charset=utf-8");
    return c.body(
      new ReadableStream({
        async start(controller) {
          try {
            for await (const entry of deps.state.store.exportAudit())
              controller.enqueue(new TextEncoder().encode(JSON.stringify(entry) + "\n"));
            controller.close();
          } catch (err) {
            controller.error(err); // the client sees a cut stream, never a short log that looks whole
          }
        },
      }),
    );
  });

  // As `audit verify` checks it: the chain held to every signed checkpoint in the database and to the
  // one in the data directory's file, whose signatures must verify with the authority's keys.
  app.get("/v1/audit/verify", approver, async (c) => {
    const check = await verifyAuditLog(ctx);
    const checkpoints = {
      stored: check.stored,
      ...(check.newestStored === undefined ? {} : { newest_stored: check.newestStored }),
      ...(check.outside === undefined ? {} : { file: check.outside.size }),
    };
    return c.json({ ...check.verification, checkpoints });
  });

  app.post("/v1/reload", approver, async (c) => {
    const result = await deps.state.reload(c.get("approver").approver);
    deps.log(describeReload(result));
    return c.json(result, result.ok ? 200 : 422);
  });
}

function lastEventId(text: string | undefined): number | undefined {
  if (text === undefined || text === "") return undefined;
  if (!/^[0-9]{1,15}$/.test(text)) throw badRequest("Last-Event-ID must be an event id from this stream", "invalid");
  return Number(text);
}
