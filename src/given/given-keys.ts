import type { GivenText } from "../model/index.js";
import { normalizeMailbox, normalizeText } from "./normalize.js";

/**
 * What of one given text a later program is searched for, all normalized (normalizeText):
 * - `whole`: the text itself — a program whose literal is exactly it pasted it;
 * - `tokens`: the parts of it that name something an attacker wants a program to use: email
 *   addresses, URLs, paths, IBAN-like codes and other runs of six digits or more (spaces and
 *   dashes between them allowed), and long words (16 letters or digits and up: ids, keys, hashes);
 *   found in a literal, or anywhere in the program's text (which catches a value split into pieces
 *   and joined again), they count as pasted;
 * - `mailboxes`: the addresses as mailboxes, so another spelling of the same mailbox matches.
 */
export interface GivenKeys {
  given: GivenText;
  whole: string;
  tokens: string[];
  mailboxes: string[];
}

/** Shorter than this, a normalized token names nothing in particular (`bob@xcom` is eight). */
export const MIN_TOKEN = 6;
/** Shorter than this, a whole text is too common to say it was copied (`yes`, `ok`). */
export const MIN_WHOLE = 4;

const EMAIL = /[\p{L}\p{N}._%+'-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+\.?/gu;
const URL_LIKE = /\bhttps?:\/\/[^\s<>"'`]+/giu;
const PATH = /(?:~|\/)[\p{L}\p{N}_.-]*(?:\/[\p{L}\p{N}_.-]+)+/gu;
const CODE = /\b[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]){10,30}\b/g;
const DIGITS = /\d(?:[ .-]?\d){5,}/g;
const LONG_WORD = /[\p{L}\p{N}_-]{16,}/gu;

export function givenKeys(given: GivenText, ignoredMailboxes: ReadonlySet<string>): GivenKeys {
  const text = given.text;
  const mailboxes = new Set<string>();
  const tokens = new Set<string>();
  for (const m of text.matchAll(EMAIL)) {
    const mailbox = normalizeMailbox(m[0]);
    if (ignoredMailboxes.has(mailbox)) continue; // the user's own address names nobody new
    mailboxes.add(mailbox);
    tokens.add(normalizeText(m[0]));
    tokens.add(mailbox);
  }
  for (const pattern of [URL_LIKE, PATH, CODE, DIGITS, LONG_WORD]) {
    for (const m of text.matchAll(pattern)) {
      if (m[0].includes("@")) continue; // an address's parts: compared as the address
      tokens.add(normalizeText(m[0]));
    }
  }
  const own = new Set(given.own ?? []);
  return {
    given,
    // The agent's own words cut out, so that no run copied from the text spans them.
    whole: [...own].reduce((w, t) => w.replaceAll(t, "\u0000"), normalizeText(text)),
    tokens: [...tokens].filter((t) => t.length >= MIN_TOKEN && !ignoredMailboxes.has(t) && !own.has(t)),
    mailboxes: [...mailboxes].filter((m) => !own.has(m)),
  };
}
