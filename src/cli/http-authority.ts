import { DecisionAnswer, RequestView, SubmitAnswer, type AuthorityClient } from "../app/index.js";
import { AuthorityContext, CheckResult, CountersignError, HandleView, Jwks, ShownOutput } from "../model/index.js";
import { callJson, Unreachable, type AuthorityAddress, type CallOptions } from "./authority-client.js";

/** How to get an authority, said whenever none answers: `run` never starts one itself. */
export const START_AUTHORITY =
  "start one with `countersign serve` (or set COUNTERSIGN_URL and COUNTERSIGN_TOKEN to one that runs elsewhere)";

/** A long poll gets this long beyond the wait it asked for before the call counts as lost. */
const POLL_SLACK_MS = 15_000;

/**
 * The authority over HTTP with a submitter token. An authority that cannot be reached is a
 * config_error saying how to start one; every answer is parsed with its schema.
 */
export function httpAuthority(address: AuthorityAddress): AuthorityClient {
  const call = async <T>(
    schema: { parse(v: unknown): T },
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    options?: CallOptions,
  ): Promise<T> => {
    try {
      return schema.parse(await callJson(address, method, path, body, options));
    } catch (err) {
      if (err instanceof Unreachable)
        throw new CountersignError("config_error", "cli", `${err.message}: ${START_AUTHORITY}`, {
          details: { url: address.url },
        });
      if (err instanceof CountersignError || options?.signal?.aborted === true) throw err;
      throw new CountersignError(
        "network_error",
        "authority",
        `the authority at ${address.url} answered ${method} ${path} with something unexpected: ${(err as Error).message}`,
      );
    }
  };
  const any = { parse: (v: unknown) => v };
  const id = (value: string) => encodeURIComponent(value);
  return {
    url: address.url,
    check: (program, signal) =>
      call(CheckResult, "POST", "/v1/check", program, { ...(signal === undefined ? {} : { signal }) }),
    submit: (body, signal) =>
      call(SubmitAnswer, "POST", "/v1/requests", body, { ...(signal === undefined ? {} : { signal }) }),
    decision: (request, wait, signal) =>
      call(DecisionAnswer, "GET", `/v1/requests/${id(request)}/decision?wait=${wait}`, undefined, {
        timeoutMs: wait * 1000 + POLL_SLACK_MS,
        ...(signal === undefined ? {} : { signal }),
      }),
    request: (request, signal) =>
      call(RequestView, "GET", `/v1/requests/${id(request)}`, undefined, {
        ...(signal === undefined ? {} : { signal }),
      }),
    withdraw: async (request) => void (await call(any, "POST", `/v1/requests/${id(request)}/withdraw`, {})),
    output: (request, { value, ...rest }) =>
      call(ShownOutput, "POST", `/v1/requests/${id(request)}/output`, { value_json: JSON.stringify(value), ...rest }),
    redeem: async (jti, exp) => void (await call(any, "POST", `/v1/receipts/${id(jti)}/redeem`, { exp })),
    jwks: () => call(Jwks, "GET", "/.well-known/jwks.json"),
    context: (signal) =>
      call(AuthorityContext, "GET", "/v1/context", undefined, { ...(signal === undefined ? {} : { signal }) }),
    handle: (handle, signal) =>
      call(HandleView, "GET", `/v1/handles/${id(handle)}`, undefined, { ...(signal === undefined ? {} : { signal }) }),
  };
}
