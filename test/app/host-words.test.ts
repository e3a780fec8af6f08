// The host a page names for a URL is the one the connector checks: the scheme and the host read
// as a URL parser reads them, the port shown only when it is not the scheme's own.
import { describe, expect, it } from "vitest";
import { hostWords } from "../../src/app/plain-words.js";
import { urlHost } from "../../src/constraint/index.js";

describe("hostWords", () => {
  it("names the host as the connector checks it, whatever the case of the scheme and host", () => {
    expect(hostWords("HTTPS://API.Example.com/x")).toBe("api.example.com");
    expect(hostWords("https://api.example.com:443/x")).toBe("api.example.com");
    expect(hostWords("http://api.example.com:443/x")).toBe("api.example.com:443");
    expect(hostWords("https://[::1]:8443/")).toBe("[::1]:8443");
    for (const url of ["HTTPS://API.Example.com/x", "http://a.example:8080/", "https://b.example./"])
      expect(hostWords(url)).toBe(urlHost(url, false));
  });

  it("shows the text itself when it is no http(s) URL", () => {
    expect(hostWords("not a url")).toBe("not a url");
    expect(hostWords("ftp://files.example/")).toBe("ftp://files.example/");
  });
});
