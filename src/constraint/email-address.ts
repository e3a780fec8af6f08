import type { Json } from "../model/index.js";
import { jsonEqual } from "./canonical-json.js";
import { memoizeString } from "./string-memo.js";
import { isShapeMember } from "./string-shape.js";
import { wildcardMatch } from "./wildcard.js";

/**
 * Email addresses in the constraint language. A string operand holding `@` (of `eq`, `in`,
 * `not_in`, `glob`) is an address or an address pattern, and a string value is compared with it
 * in canonical form: ASCII letters in lower case, one trailing dot dropped. Domains ignore case
 * and `rival.com.` is the same domain as `rival.com`; the providers countersign sends through
 * ignore the case of local parts, and the email connector sends every address in this same form,
 * so the mailbox a constraint matched is the mailbox the mail goes to. Whitespace is not trimmed:
 * no plain address holds any, and the connector refuses such an address rather than guess.
 */
export function isAddress(text: string): boolean {
  return text.includes("@");
}

/** Remembered per string: a policy's addresses and a program's are compared again for every rule. */
export const canonicalAddress: (text: string) => string = memoizeString((text) =>
  foldAscii(text.endsWith(".") ? text.slice(0, -1) : text),
);

/** ASCII-only lower case: keeps the string's length, unlike toLowerCase on some non-ASCII letters. */
export function foldAscii(text: string): string {
  return UPPER.test(text) ? text.replace(UPPER_ALL, (c) => c.toLowerCase()) : text;
}

const UPPER = /[A-Z]/;
const UPPER_ALL = /[A-Z]/g;

/**
 * Whether `value` is the operand of `eq`/`in`/`not_in`: an address operand matches a string with
 * the same canonical form, anything else by deep JSON equality.
 */
export function sameValue(operand: Json, value: Json): boolean {
  if (typeof operand === "string" && isAddress(operand))
    return typeof value === "string" && canonicalAddress(value) === canonicalAddress(operand);
  return jsonEqual(value, operand);
}

/**
 * Partly known strings (prefix, suffix) whose members include the canonical form of every string
 * starting with `prefix` and ending with `suffix`: one for the strings without a trailing dot, one
 * for those with one (the dot dropped; its prefix loses a final dot, which such a string may be).
 * Over-approximate, so a verdict that holds for every member of these holds for the canonical forms.
 */
export function canonicalShapes(prefix: string, suffix: string): { prefix: string; suffix: string }[] {
  const shapes: { prefix: string; suffix: string }[] = [];
  if (!suffix.endsWith(".")) shapes.push({ prefix: foldAscii(prefix), suffix: foldAscii(suffix) });
  if (suffix === "" || suffix.endsWith(".")) {
    shapes.push({
      prefix: foldAscii(prefix.endsWith(".") ? prefix.slice(0, -1) : prefix),
      suffix: foldAscii(suffix.slice(0, -1)),
    });
  }
  return shapes;
}

/**
 * Whether some string starting with `prefix` and ending with `suffix` is the operand `x` (for an address: in canonical
 * form).
 */
export function shapeMayBe(x: string, prefix: string, suffix: string): boolean {
  if (!isAddress(x)) return isShapeMember(x, prefix, suffix);
  const canonical = canonicalAddress(x);
  return canonicalShapes(prefix, suffix).some((s) => isShapeMember(canonical, s.prefix, s.suffix));
}

/**
 * The mailbox an address reaches, for conditions that must catch every spelling of it (a policy's
 * deny and ask conditions, see widenAddresses): the canonical form without a subaddress (`+` and
 * what follows it in the local part, RFC 5233's separator, which Gmail, Outlook, Fastmail, iCloud
 * and Proton deliver to the base mailbox), and for Gmail, which documents that dots in its local
 * parts do not matter and that googlemail.com is gmail.com, without dots and under gmail.com. A
 * string without exactly one `@`, or with a quote (a quoted local part may hold `+`), is no plain
 * address: its mailbox is its canonical form. Every step only deletes characters or shortens
 * googlemail.com to gmail.com, a subsequence of it: mailboxCover relies on that.
 */
export const mailboxOf: (text: string) => string = memoizeString((text) => {
  const canonical = canonicalAddress(text);
  const at = canonical.indexOf("@");
  if (at < 0 || at !== canonical.lastIndexOf("@") || canonical.includes('"')) return canonical;
  let local = canonical.slice(0, at);
  let domain = canonical.slice(at + 1);
  const plus = local.indexOf("+");
  if (plus >= 0) local = local.slice(0, plus);
  if (domain === "googlemail.com") domain = "gmail.com";
  if (domain === "gmail.com") local = local.replaceAll(".", "");
  return `${local}@${domain}`;
});

/** Whether `value` reaches the mailbox the address `operand` reaches (`mailbox_in`). */
export function sameMailbox(operand: string, value: Json): boolean {
  return typeof value === "string" && mailboxOf(value) === mailboxOf(operand);
}

/**
 * `mailbox_glob`: the pattern matches the value's canonical form, or the pattern's mailbox form
 * matches the value's mailbox (so `ceo@*` catches `ceo+x@rival.com` and `c.e.o@gmail.com`, and
 * `*@gmail.com` catches `x@googlemail.com`).
 */
export function mailboxGlobMatches(pattern: string, value: string): boolean {
  return (
    wildcardMatch(canonicalAddress(pattern), canonicalAddress(value)) ||
    wildcardMatch(mailboxOf(pattern), mailboxOf(value))
  );
}

/**
 * Address globs whose matches, together, include every string whose mailbox matches `pattern`'s
 * mailbox form (a literal address is a pattern without wildcards): the static check answers "no"
 * for a partly known string only when none of them can match it. Sound because a plain address's
 * mailbox is a subsequence of its canonical form with the domain kept (googlemail.com aside):
 * with pattern L@D, outside Gmail the address is L-match, optionally followed by `+tag`, at a
 * D-match (`L*@D`); at Gmail, the local part holds the pattern's characters in order with dots
 * and a tag between them, at gmail.com or googlemail.com. A string that is no plain address has
 * its canonical form as its mailbox: the pattern itself covers it.
 */
export function mailboxCover(pattern: string): string[] {
  const mailbox = mailboxOf(pattern);
  const at = mailbox.lastIndexOf("@");
  const local = mailbox.slice(0, at);
  const domain = mailbox.slice(at + 1);
  const cover = [canonicalAddress(pattern), mailbox, `${local}*@${domain}`];
  if (wildcardMatch(domain, "gmail.com")) {
    const spread = `*${[...local].join("*")}*`;
    cover.push(`${spread}@gmail.com`, `${spread}@googlemail.com`);
  }
  return cover;
}
