// A real authority on 127.0.0.1 for the tests: its own data directory, a real SQLite file or a
// fresh database on the run's PostgreSQL, real HTTP through fetch.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeLoginLink } from "../../src/app/index.js";
import { startAuthority, type Authority, type AuthorityOptions } from "../../src/authority/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { openStore } from "../../src/store/index.js";
import { newDatabase, type DialectName } from "../store/fixtures.js";

export const HOME = "/home/user"; // what ~ means in the policy, as the examples expect

export interface TestAuthority {
  authority: Authority;
  url: string;
  dataDir: string;
  database: string;
  token: string; // the first submitter token, from submitter.token
  call(method: string, path: string, options?: CallOptions): Promise<Answer>;
  login(approver?: string): Promise<ApproverSession>;
  close(): Promise<void>;
}

export interface CallOptions {
  token?: string | null; // default the first submitter token; null: none
  session?: ApproverSession;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  csrf?: boolean; // send the session's CSRF token (default true with a session)
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export interface ApproverSession {
  cookie: string; // the Cookie header value
  csrf: string;
}

export const example = (name: string): string => readFileSync(join(packageRoot, "examples", name), "utf8");

export async function startTestAuthority(
  dialect: DialectName,
  extra: Partial<AuthorityOptions> & { dataDir?: string; database?: string } = {},
): Promise<TestAuthority> {
  const dataDir = extra.dataDir ?? join(mkdtempSync(join(tmpdir(), "countersign-authority-")), "data");
  // A user's own address, so that the shipped policy lets mail to me@example.com through (own_address).
  if (extra.dataDir === undefined) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, "connections.toml"), '[email]\naddress = "me@example.com"\n');
  }
  const database =
    extra.database ??
    (dialect === "sqlite"
      ? join(mkdtempSync(join(tmpdir(), "countersign-db-")), "countersign.db")
      : await newDatabase("postgres"));
  const store = await openStore({ dataDir, database });
  const authority = await startAuthority({
    dataDir,
    home: HOME,
    store,
    port: 0,
    poolSize: 1,
    log: () => undefined,
    ...extra,
  });
  const token = readFileSync(join(dataDir, "submitter.token"), "utf8").trim();
  const call = async (method: string, path: string, options: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...options.headers };
    const bearer = options.token === undefined ? (options.session === undefined ? token : null) : options.token;
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    if (options.session !== undefined) {
      headers.cookie = options.session.cookie;
      if (options.csrf !== false) headers["x-csrf-token"] = options.session.csrf;
    }
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await fetch(authority.url + path, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      redirect: "manual",
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed };
  };
  return {
    authority,
    url: authority.url,
    dataDir,
    database,
    token,
    call,
    async login(approver = "alice") {
      const link = makeLoginLink({ dataDir, now: () => new Date() }, approver);
      const answer = await call("GET", `/login?link=${link}`, { token: null });
      if (answer.status !== 303) throw new Error(`login failed: ${answer.status} ${JSON.stringify(answer.body)}`);
      const cookies = answer.headers.getSetCookie().map((c) => c.split(";")[0]!);
      const csrf = cookies.find((c) => c.startsWith("countersign_csrf="))!.split("=")[1]!;
      return { cookie: cookies.join("; "), csrf };
    },
    close: () => authority.close(),
  };
}

/** An authority for the tests of one describe block, with "alice" logged in; closed after them. */
export function authorityForSuite(
  dialect: DialectName,
  started: (a: TestAuthority, alice: ApproverSession) => void,
  extra: Partial<AuthorityOptions> = {},
): void {
  let a: TestAuthority | undefined;
  beforeAll(async () => {
    a = await startTestAuthority(dialect, extra);
    started(a, await a.login("alice"));
  });
  afterAll(async () => a?.close());
}

/**
 * The first analysis in a fresh worker loads the compiler's libraries; on a loaded machine it can
 * pass the analysis budget and be refused. Suites whose steps are not about the budget warm the
 * worker first (a budget refusal is never cached, so a later try analyzes afresh).
 */
export async function warmAnalysis(a: TestAuthority, tries = 5): Promise<void> {
  for (let i = 0; i < tries; i++) {
    const answer = await a.call("POST", "/v1/check", { body: { program: example("notify-team.ts") } });
    if (answer.status === 200 && answer.body.facts.ok === true) return;
  }
  throw new Error(`the analysis stayed past its budget ${tries} times`);
}

export interface SseEvent {
  id: number;
  event: string;
  data: { request_id: string; status: string };
}

/** An SSE client over fetch: collects events until a condition holds. */
export function openEvents(a: TestAuthority, session: ApproverSession, lastEventId?: number) {
  const controller = new AbortController();
  const events: SseEvent[] = [];
  let notify = () => {};
  let opened!: () => void;
  const openedP = new Promise<void>((r) => (opened = r));
  const ended = (async () => {
    const response = await fetch(`${a.url}/v1/events`, {
      headers: {
        cookie: session.cookie,
        ...(lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) }),
      },
      signal: controller.signal,
    });
    opened();
    let buffer = "";
    for await (const chunk of response.body!) {
      buffer += Buffer.from(chunk).toString("utf8");
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = Object.fromEntries(
          block
            .split("\n")
            .filter((l) => !l.startsWith(":"))
            .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]),
        );
        if (fields.data !== undefined)
          events.push({ id: Number(fields.id), event: fields.event!, data: JSON.parse(fields.data) });
        notify();
      }
    }
  })().catch(() => undefined);
  return {
    opened: openedP,
    /** Resolves when the server ends the stream (or it is closed here). */
    ended,
    until: (done: (list: SseEvent[]) => boolean) =>
      new Promise<SseEvent[]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`events so far: ${JSON.stringify(events)}`)), 10_000);
        notify = () => {
          if (done(events)) {
            clearTimeout(timer);
            resolve([...events]);
          }
        };
        notify();
      }),
    close: () => controller.abort(),
  };
}
