import { z } from "zod";
import { makeLoginLink, type RequestPage } from "../../app/index.js";
import { CountersignError, QuestionAnswer } from "../../model/index.js";
import { envelopeError } from "../authority-client.js";
import { ApproverList, ApproverPage, type ApproverRequest } from "./approver-view.js";
import { SseParser } from "./sse.js";

/** A change the authority announces on `/v1/events`: a request became pending, was resolved or expired. */
export const LiveEvent = z.object({ type: z.string(), request_id: z.string(), status: z.string() });
export type LiveEvent = z.infer<typeof LiveEvent>;

/** What a decision sends: the authority's DecisionBody. */
export type DecisionRequest =
  | { decision: "approved_once" | "approved_remember"; shown?: string } // shown: the page's binding.sha256
  | { decision: "rejected"; reason: string }
  | { decision: "request_more"; feedback: string };

export interface ApproverClientOptions {
  url: string; // the authority, without a trailing slash
  dataDir: string; // where the approver secret is
  approver: string; // the name decisions are recorded as
}

/** How long the event stream waits before it connects again after a drop. */
const RECONNECT_MS = 1000;

/**
 * The authority's approver API as the person at this terminal: it logs in with a one-time link
 * made from the approver secret in the data directory (as `countersign ui` does) and holds the
 * session cookie and its CSRF token. It never sends a submitter token: the authority refuses any
 * bearer token on approver routes. A session that ends (after 12 h, or a new secret) logs in again.
 */
export class ApproverClient {
  #session: { cookie: string; csrf: string } | undefined;

  readonly #options: ApproverClientOptions;

  constructor(options: ApproverClientOptions) {
    this.#options = options;
  }

  get url(): string {
    return this.#options.url;
  }

  async pending(): Promise<ApproverRequest[]> {
    return ApproverList.parse(await this.#json("GET", "/v1/requests?status=pending&limit=500")).requests;
  }

  /**
   * The requests no longer pending, newest first: decided by a person, by the policy or a remembered rule, or expired.
   */
  async history(): Promise<ApproverRequest[]> {
    return ApproverList.parse(await this.#json("GET", "/v1/requests?limit=200")).requests.filter(
      (r) => r.status !== "pending",
    );
  }

  /** A question answered from the request's facts, here and now; never sent to the agent, never a decision. */
  async question(id: string, question: string): Promise<QuestionAnswer> {
    return QuestionAnswer.parse(
      await this.#json("POST", `/v1/requests/${encodeURIComponent(id)}/question`, { question }),
    );
  }

  /** One request as both approval surfaces show it; a pending one with its previews, fetched anew for this showing. */
  async page(id: string): Promise<RequestPage> {
    return ApproverPage.parse(await this.#json("GET", `/v1/requests/${encodeURIComponent(id)}/page`));
  }

  /** Send a decision; read the page again to see it (the answer is the raw request, not the page). */
  async decide(id: string, body: DecisionRequest): Promise<void> {
    await this.#json("POST", `/v1/requests/${encodeURIComponent(id)}/decision`, body);
  }

  /**
   * Follow `/v1/events` until `signal` aborts: each event to `onEvent`; `onConnected` each time the
   * stream (re)opens, so the caller can read afresh what it may have missed; a dropped stream
   * resumes after the last event it delivered.
   */
  async watch(
    handlers: { onEvent: (event: LiveEvent) => void; onConnected: () => void; onDropped: (err: unknown) => void },
    signal: AbortSignal,
  ): Promise<void> {
    let last: string | undefined;
    while (!signal.aborted) {
      try {
        const response = await this.#send(
          "GET",
          "/v1/events",
          undefined,
          signal,
          last === undefined ? {} : { "last-event-id": last },
        );
        if (!response.ok || response.body === null) throw await answerError(response, this.url);
        handlers.onConnected();
        const parser = new SseParser();
        const decoder = new TextDecoder();
        for await (const chunk of response.body) {
          for (const event of parser.push(decoder.decode(chunk as Uint8Array, { stream: true }))) {
            if (event.id !== undefined) last = event.id;
            const parsed = LiveEvent.safeParse(safeJson(event.data));
            if (parsed.success) handlers.onEvent(parsed.data);
          }
        }
        throw new Error("the event stream ended");
      } catch (err) {
        if (signal.aborted) return;
        handlers.onDropped(err);
      }
      await pause(RECONNECT_MS, signal);
    }
  }

  async #json(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await this.#send(method, path, body);
    const value = safeJson(await response.text());
    const error = envelopeError(value);
    if (error !== undefined) throw error;
    if (!response.ok || value === undefined)
      throw new CountersignError(
        "network_error",
        "authority",
        `the authority at ${this.url} answered HTTP ${response.status} to ${method} ${path}`,
        { details: { status: response.status } },
      );
    return value;
  }

  /** One call with the session, logging in first or again (once) when the authority says it has none. */
  async #send(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const attempt = async () => {
      this.#session ??= await this.#login();
      return this.#fetch(path, {
        method,
        headers: {
          ...headers,
          cookie: this.#session.cookie,
          "x-csrf-token": this.#session.csrf,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal === undefined ? {} : { signal }),
      });
    };
    const response = await attempt();
    if (response.status !== 401) return response;
    await response.body?.cancel();
    this.#session = undefined;
    return attempt();
  }

  async #login(): Promise<{ cookie: string; csrf: string }> {
    const link = makeLoginLink({ dataDir: this.#options.dataDir, now: () => new Date() }, this.#options.approver);
    const response = await this.#fetch(`/login?link=${link}`, { redirect: "manual" });
    if (response.status !== 303) throw await answerError(response, this.url);
    const cookies = response.headers.getSetCookie().map((c) => c.split(";")[0]!);
    const csrf = cookies.find((c) => c.startsWith("countersign_csrf="))?.slice("countersign_csrf=".length);
    if (csrf === undefined)
      throw new CountersignError(
        "network_error",
        "authority",
        `the authority at ${this.url} logged in without a CSRF token: not a countersign authority?`,
      );
    return { cookie: cookies.join("; "), csrf };
  }

  async #fetch(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(this.url + path, init);
    } catch (err) {
      if ((err as Error).name === "AbortError") throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new CountersignError(
        "network_error",
        "authority",
        `the authority at ${this.url} cannot be reached: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
        { retriable: true },
      );
    }
  }
}

async function answerError(response: Response, url: string): Promise<CountersignError> {
  return (
    envelopeError(safeJson(await response.text())) ??
    new CountersignError("network_error", "authority", `the authority at ${url} answered HTTP ${response.status}`, {
      details: { status: response.status },
    })
  );
}

/** Wait `ms`, or less when `signal` aborts (quitting never waits for a reconnect). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
