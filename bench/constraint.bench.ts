// The run-time checks wrappers make on every call, each next to the plain operation it builds on.
import { posix } from "node:path";
import { holds, holdsEffect, satisfies, satisfiesCall, type Call } from "../src/constraint/index.js";
import type { AbstractValue } from "../src/model/abstract.js";
import type { Effect } from "../src/model/facts.js";
import { measure, table, writeSection } from "./report.js";

const N = 10_000;
const recipients = Array.from({ length: 50 }, (_, i) => `user${i}@example.com`);
const to = ["user3@example.com", "user17@example.com", "user42@example.com"];
const url = "https://api.x.com/v1/items?page=2";
const path = "/home/u/Sandbox/reports/../reports/2024/summary.txt";
// URL hosts and normalized paths are remembered per exact string (1024 at most): these are never
// seen twice within the cache's reach, so every check parses or normalizes afresh.
const freshUrls = Array.from({ length: N }, (_, i) => `https://api.x.com/v1/items?page=${i}`);
const freshPaths = Array.from({ length: N }, (_, i) => `/home/u/Sandbox/reports/../reports/${i}/summary.txt`);
const history: Call[] = Array.from({ length: 100 }, (_, i) => ({
  op: "email.send_email",
  args: { to: [`r${i}@example.com`] },
}));
const call: Call = { op: "email.send_email", args: { to: ["new@example.com"] } };
const str: AbstractValue = { kind: "string", prefix: "https://api.x.com/", suffix: "", provenance: [] };
const effects: Effect[] = Array.from({ length: 20 }, (_, i) => ({
  op: "email.send_email",
  connector: "email",
  action: "send_email",
  site: { line: i + 1, column: 1 },
  args: { to: { kind: "const", values: [[`r${i}@example.com`]] } },
  count: { min: 1, max: 1 },
}));

const loop = (fn: (i: number) => unknown) => () => {
  for (let i = 0; i < N; i++) fn(i);
};
const rows: [string, (i: number) => unknown, string, (i: number) => unknown][] = [
  [
    "satisfies in (50 addresses, 3 recipients)",
    () => satisfies({ in: recipients }, to),
    "JSON.stringify of the recipients",
    () => JSON.stringify(to),
  ],
  [
    "satisfies host_in, the same URL again",
    () => satisfies({ host_in: ["api.x.com", "api.y.com:8443"] }, url),
    "new URL(value)",
    () => new URL(url),
  ],
  [
    "satisfies host_in, a new URL each time",
    (i) => satisfies({ host_in: ["api.x.com", "api.y.com:8443"] }, freshUrls[i]!),
    "new URL(value)",
    (i) => new URL(freshUrls[i]!),
  ],
  [
    "satisfies under, the same path again",
    () => satisfies({ under: "/home/u/Sandbox" }, path),
    "path.posix.normalize",
    () => posix.normalize(path),
  ],
  [
    "satisfies under, a new path each time",
    (i) => satisfies({ under: "/home/u/Sandbox" }, freshPaths[i]!),
    "path.posix.normalize",
    (i) => posix.normalize(freshPaths[i]!),
  ],
  [
    "satisfies glob *@example.com",
    () => satisfies({ glob: "*@example.com" }, to),
    "String.endsWith per recipient",
    () => to.every((t) => t.endsWith("@example.com")),
  ],
  [
    "satisfiesCall distinct, 100 calls before",
    () => satisfiesCall({ op: "email.send_*", distinct: "to" }, call, history),
    "JSON.stringify of the history",
    () => JSON.stringify(history),
  ],
  [
    "holds host_in on a URL prefix",
    () => holds({ host_in: ["api.x.com"] }, str),
    "new URL(prefix)",
    () => new URL(str.kind === "string" ? str.prefix : ""),
  ],
  [
    "holdsEffect recipients + distinct, 20 effects",
    () => holdsEffect({ op: "email.*", args: { to: { in: recipients } }, distinct: "to" }, effects),
    "JSON.stringify of the effects",
    () => JSON.stringify(effects),
  ],
];

const out: string[][] = [["check", "µs per check", "baseline", "µs", "ratio"]];
for (const [name, fn, baseName, base] of rows) {
  const t = ((await measure(loop(fn), { samples: 11 })) * 1000) / N;
  const b = ((await measure(loop(base), { samples: 11 })) * 1000) / N;
  out.push([name, t.toFixed(2), baseName, b.toFixed(2), `${(t / b).toFixed(1)}×`]);
}
const body = `${table(out)}

\`host_in\` and \`under\` remember a URL's host and port and a normalized path per exact string (at
most 1024 strings of at most 1024 characters), since the policy checks one value against rule
after rule: a value seen before costs a lookup, a new one its parse plus remembering it.`;
console.log(body);
writeSection("constraint", "Constraint checks", body);
