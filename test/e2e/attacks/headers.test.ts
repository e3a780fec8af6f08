// Header injection and request smuggling through http.post's content_type and the URL: the
// policy allows posts under /public/ on one host. Whatever the program writes in those fields,
// the server receives no header the program added and no second request.
import { describe, expect, it } from "vitest";
import { allowUrlsUnder, program, shown, SLOW, useWorld } from "./world.js";

const w = useWorld({
  policies: (world) => ({
    "attacks.toml": `default = "deny"

${allowUrlsUnder(`${world.sinks[0]!.origin}/public/`)}`,
  }),
});

describe("CRLF in the fields of a request", () => {
  it(
    "content_type and URL carrying line breaks add no header and no request",
    async () => {
      const s = w.sinks[0]!;
      const attempts = [
        { url: `${s.origin}/public/a`, content_type: "text/plain\r\nX-Injected: 1" },
        { url: `${s.origin}/public/b`, content_type: "text/plain\nX-Injected: 2" },
        {
          url: `${s.origin}/public/c`,
          content_type: `text/plain\r\n\r\nPOST /admin HTTP/1.1\r\nHost: ${s.host}\r\nContent-Length: 0\r\n\r\n`,
        },
        { url: `${s.origin}/public/d HTTP/1.1\r\nX-Injected: 4\r\nX: y`, content_type: "text/plain" },
        { url: `${s.origin}/public/e\r\n\r\nPOST /admin HTTP/1.1\r\nHost: x\r\n\r\n`, content_type: "text/plain" },
      ];
      const said: string[] = [];
      for (const a of attempts) {
        const r = await w.run(
          program(
            `    try { await post({ url: ${JSON.stringify(a.url)}, body: "B", content_type: ${JSON.stringify(a.content_type)} }); } catch {}`,
            { imports: `import { post } from "trusted/http";` },
          ),
        );
        said.push(`exit ${r.code}: ${r.stdout.split("\n")[1]} ${r.stderr.split("\n")[0]}`);
      }
      expect(
        shown(s.received.filter((a) => Object.keys(a.headers).some((h) => h.startsWith("x-injected") || h === "x"))),
        said.join("\n"),
      ).toBe("(nothing)");
      expect(shown(s.received.filter((a) => !a.url.startsWith("/public/"))), said.join("\n")).toBe("(nothing)");
      // The control: a plain post with a plain content type arrives with it.
      await w.run(
        program(`    await post({ url: "${s.origin}/public/ok", body: "B", content_type: "text/plain" });`, {
          imports: `import { post } from "trusted/http";`,
        }),
      );
      expect(s.received.find((a) => a.url === "/public/ok")?.headers["content-type"]).toBe("text/plain");
    },
    SLOW,
  );
});
