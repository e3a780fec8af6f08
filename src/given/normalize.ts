import { mailboxOf } from "../constraint/index.js";

/**
 * The form in which a pasted value is compared with what the agent was given: compatibility
 * forms folded (NFKC: full-width letters, ligatures), lower case, percent-escapes decoded, and
 * every character but letters, digits and `@` dropped. So `DE89 3704-0044`, `de8937040044` and
 * `"DE89" + "3704" + "0044"` in a program's text all read `de8937040044`; so do a URL and its
 * spelling with a trailing slash or an encoded safe character.
 */
export function normalizeText(text: string): string {
  return decodePercent(text.normalize("NFKC")).toLowerCase().replace(DROPPED, "");
}

const DROPPED = /[^\p{L}\p{N}@]+/gu;
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

function decodePercent(text: string): string {
  if (!text.includes("%")) return text;
  return text.replace(ESCAPES, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/** An address in the form every spelling of its mailbox shares (`Attacker+x@EVIL.com.` is `attacker@evilcom`). */
export function normalizeMailbox(address: string): string {
  return normalizeText(mailboxOf(address.normalize("NFKC")));
}
