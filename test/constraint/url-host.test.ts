// host_in on partly known URLs reads the host as the WHATWG parser (and so fetch) does, or says
// maybe: never the host a person might read in the text instead.
import { describe, expect, it } from "vitest";
import { holdsHostIn } from "../../src/constraint/holds-host.js";
import { satisfies } from "../../src/constraint/index.js";

describe("host_in on a known URL prefix", () => {
  const table: [string, string[], "yes" | "no" | "maybe"][] = [
    ["https://api.x.com/", ["api.x.com"], "yes"],
    ["HTTPS://API.X.COM/", ["api.x.com"], "yes"],
    ["https://api.x.com./", ["api.x.com"], "yes"],
    ["https://api.x.com:443/", ["api.x.com:443"], "yes"],
    ["https://api.x.com@evil.com/", ["api.x.com"], "no"],
    ["https://api.x.com@evil.com/", ["evil.com"], "yes"],
    ["https://evil.com\\@api.x.com/", ["evil.com"], "yes"], // `\` ends the authority of an http(s) URL
    ["https://evil.com\\@api.x.com/", ["api.x.com"], "no"],
    ["https://api.x.com\t.evil.com/", ["api.x.com"], "maybe"], // a tab is dropped: the host is api.x.com.evil.com
    ["https://api.x.com\n.evil.com/", ["api.x.com"], "maybe"],
    ["https://api%2ex.com/", ["api.x.com"], "yes"], // the parser decodes the host
    ["https://0x7f.1/", ["127.0.0.1"], "yes"],
    ["https://127.1/", ["127.0.0.1"], "yes"],
    ["https://ÄPI.x.com/", ["xn--pi-uia.x.com"], "yes"], // IDNA: lower case, then punycode
    ["https://ÄPI.x.com/", ["äpi.x.com"], "yes"],
    ["https://api.x.com", ["api.x.com"], "maybe"], // the rest may continue the host (.evil.com)
    ["https:api.x.com/", ["api.x.com"], "maybe"],
    ["https:/api.x.com/", ["api.x.com"], "maybe"],
    [" https://api.x.com/", ["api.x.com"], "maybe"],
    ["ftp://api.x.com/", ["api.x.com"], "no"],
  ];
  for (const [prefix, entries, verdict] of table) {
    it(`${JSON.stringify(prefix)} in ${entries.join(", ")}: ${verdict}`, () => {
      expect(holdsHostIn(entries, prefix)).toBe(verdict);
      // Whatever follows a decided prefix, the parser agrees.
      if (verdict !== "maybe")
        for (const rest of ["", "a/../b", "..%2f", "?x#y", "\\..\\"])
          expect(satisfies({ host_in: entries }, prefix + rest)).toBe(verdict === "yes");
    });
  }
});
