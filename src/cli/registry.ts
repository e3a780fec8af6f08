import type { Command } from "./command.js";

/** One command: its one-line summary (for `help`, which loads no command) and its module, loaded on use. */
export interface CommandEntry {
  summary: string;
  load: () => Promise<Command>;
}

/**
 * Every command, loaded lazily so a command pays only for the modules it uses (the TypeScript
 * compiler behind `check` is by far the largest). One entry per command file.
 */
export const commands: Record<string, CommandEntry> = {
  manifests: {
    summary: "validate action and connector manifests",
    load: () => import("./manifests.js").then((m) => m.default),
  },
  api: {
    summary: "print the agent API (TypeScript declarations generated from the manifests)",
    load: () => import("./api.js").then((m) => m.default),
  },
  policy: {
    summary: "check a policy, run its tests, explain a decision, simulate it on recorded requests",
    load: () => import("./policy.js").then((m) => m.default),
  },
  keys: { summary: "list or rotate the receipt signing keys", load: () => import("./keys.js").then((m) => m.default) },
  receipt: {
    summary: "verify a receipt against a program and the authority's keys",
    load: () => import("./receipt.js").then((m) => m.default),
  },
  check: {
    summary: "analyze a program: effects, guarantees, summary",
    load: () => import("./check.js").then((m) => m.default),
  },
  context: {
    summary: "what an agent may do here: address, folders, hosts, the policy in words, limits",
    load: () => import("./context.js").then((m) => m.default),
  },
  run: {
    summary: "check, submit, wait for approval and run a program in the sandbox",
    load: () => import("./run.js").then((m) => m.default),
  },
  mcp: {
    summary: "serve check, run and the API to agent hosts over MCP (stdio)",
    load: () => import("./mcp.js").then((m) => m.default),
  },
  serve: {
    summary: "run the authority: requests, decisions, receipts, audit",
    load: () => import("./serve.js").then((m) => m.default),
  },
  init: {
    summary: "make the authority's data directory without serving",
    load: () => import("./init.js").then((m) => m.default),
  },
  ui: { summary: "print a one-time approver login link", load: () => import("./ui.js").then((m) => m.default) },
  approve: {
    summary: "decide pending requests in the terminal (the terminal approver)",
    load: () => import("./approve.js").then((m) => m.default),
  },
  token: { summary: "add, list or revoke submitter tokens", load: () => import("./token.js").then((m) => m.default) },
  connect: {
    summary: "connect a connection to an account with OAuth 2.0 (the host renews its tokens)",
    load: () => import("./connect.js").then((m) => m.default),
  },
  audit: {
    summary: "verify or export the hash-chained audit log",
    load: () => import("./audit.js").then((m) => m.default),
  },
};
