import type { AdversarialCase } from "./case.js";
import { mail, prog } from "./program.js";

/**
 * Spellings of addresses, hosts and paths that mean the same place. Most are read alike by the
 * static check, the run-time check and the connector (one URL parser, normalized paths); the
 * `decisions` say what the plain policy's deny rules must make of them.
 */
export const unicodeCases: AdversarialCase[] = [
  {
    name: "a trailing dot after the mail domain",
    expect: "covered",
    decisions: { "plain policy": "auto_rejected" },
    source: prog(`await sendEmail(${mail(`["boss@rival.com."]`)});`),
  },
  {
    name: "an upper-case mail domain",
    expect: "covered",
    decisions: { "plain policy": "auto_rejected" },
    source: prog(`await sendEmail(${mail(`["boss@RIVAL.COM"]`)});`),
  },
  {
    name: "a trailing dot after the host",
    expect: "covered",
    decisions: { "plain policy": "auto_rejected", "default policy": "auto_rejected" },
    source: prog(`await get({ url: "https://evil.com./" });`),
  },
  {
    name: "a percent-encoded dot in the host",
    expect: "covered",
    decisions: { "plain policy": "auto_rejected" },
    source: prog(`await get({ url: "https://evil%2Ecom/" });`),
  },
  {
    name: "an ideographic full stop in the host",
    expect: "covered",
    decisions: { "plain policy": "auto_rejected" },
    source: prog(`await get({ url: "https://evil\u3002com/" });`),
  },
  {
    name: "full-width letters in the host",
    expect: "covered",
    decisions: { "plain policy": "auto_rejected" },
    source: prog(`await get({ url: "https://\uff45\uff56\uff49\uff4c.com/" });`),
  },
  {
    name: "userinfo that looks like the allowed host",
    expect: "covered",
    decisions: { "default policy": "auto_rejected" },
    source: prog(`await get({ url: "https://api.example.com@evil.com/" });`),
  },
  {
    name: "a backslash before the at sign",
    expect: "covered",
    decisions: { "default policy": "auto_approved" },
    source: prog(`await get({ url: "https://api.example.com\\\\@evil.com/" });`),
  },
  {
    name: "a tab inside the host",
    expect: "covered",
    decisions: { "plain policy": "auto_rejected" },
    source: prog(`await get({ url: "https://ev\\til.com/" });`),
  },
  // The host is the program's own, the tail the draft's: the default policy asks about a URL from untrusted data.
  {
    name: "an unknown tail after a known host",
    expect: "covered",
    decisions: { "default policy": "ask" },
    source: prog(
      `const d = await getDraft({ id: "1" });\n    await get({ url: "https://api.example.com/" + String(d.body) });`,
    ),
  },
  {
    name: "a known host without its slash, then an unknown tail",
    expect: "covered",
    decisions: { "default policy": "ask" },
    source: prog(
      `const d = await getDraft({ id: "1" });\n    await get({ url: "https://api.example.com" + String(d.body) });`,
    ),
  },
  {
    name: "a path that climbs out of the sandbox",
    expect: "covered",
    decisions: { "default policy": "auto_rejected" },
    source: prog(`await writeFile({ path: "/home/u/Sandbox/../.bashrc", content: "x" });`),
  },
  {
    name: "a doubled slash into /etc",
    expect: "covered",
    decisions: { "plain policy": "auto_rejected" },
    source: prog(`await writeFile({ path: "//etc/passwd", content: "x" });`),
  },
];
