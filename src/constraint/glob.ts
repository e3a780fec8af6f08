import { canonicalAddress, isAddress } from "./email-address.js";
import { wildcardMatch } from "./wildcard.js";

/**
 * A glob is case-sensitive, except that a pattern holding `@` is an email pattern: pattern and
 * value compare in canonical address form (email-address.ts), so a deny rule on `*@rival.com`
 * catches `eve@RIVAL.com` and `ceo@rival.com.`. Paths and other strings keep their case (`/Home`
 * is not `/home`).
 */
export function globMatches(pattern: string, value: string): boolean {
  return isAddress(pattern)
    ? wildcardMatch(canonicalAddress(pattern), canonicalAddress(value))
    : wildcardMatch(pattern, value);
}
