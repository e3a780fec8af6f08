// Redirects: the server the grant allows answers with a redirect to a path or a host the grant
// does not allow. The request the connector would make there is an effect nobody approved; a
// 307/308 would also carry the body, and a same-host redirect the connector's credential.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { allowUrlsUnder, program, shown, SLOW, useWorld } from "./world.js";

const w = useWorld({
  sinks: 3,
  // The email connection points at sink 2, a Gmail-shaped path that redirects.
  connections: (world) =>
    `[email]\nbase_url = "${world.sinks[1]!.origin}"\ntoken_file = "${join(world.data, "gmail-token")}"\n\n[http]\nhosts = [${world.sinks.map((s) => `"${s.host}"`).join(", ")}]\n`,
  policies: (world) => ({
    "attacks.toml": `default = "deny"

${allowUrlsUnder(`${world.sinks[0]!.origin}/public/`)}
[[rules]]
id = "email.to-myself"
decision = "allow"
op = "email.send_email"
when = { args = { to = { in = ["me@example.com"] } } }
`,
  }),
});

beforeAll(() => {
  const [s1, s2, s3] = w.sinks as [(typeof w.sinks)[0], (typeof w.sinks)[0], (typeof w.sinks)[0]];
  for (const status of [301, 302, 303, 307, 308]) {
    s1.redirect(`/public/r${status}`, status, "/admin");
    s1.redirect(`/public/x${status}`, status, `${s3.origin}/steal`);
  }
  s1.redirect("/public/rel", 307, "../admin");
  s1.redirect("/public/scheme-relative", 307, `//${s3.host}/steal`);
  s1.redirect("/public/chain", 307, "/public/chain2");
  s1.redirect("/public/chain2", 307, "/admin");
  s2.redirect("/gmail/v1/users/me/messages/send", 307, "/admin");
});

const post = (url: string) =>
  program(`    try { await post({ url: ${JSON.stringify(url)}, body: "PAYLOAD-7d1e" }); } catch {}`, {
    imports: `import { post } from "trusted/http";`,
  });
const get = (url: string) =>
  program(`    try { await get({ url: ${JSON.stringify(url)} }); } catch {}`, {
    imports: `import { get } from "trusted/http";`,
  });

describe("a redirect out of what the grant allows", () => {
  it(
    "301, 302, 303, 307, 308 to /admin on the same host, relative or chained: /admin receives nothing",
    async () => {
      const said: string[] = [];
      const paths = [
        "/public/r301",
        "/public/r302",
        "/public/r303",
        "/public/r307",
        "/public/r308",
        "/public/rel",
        "/public/chain",
      ];
      for (const path of paths) {
        const r = await w.run(post(`${w.sinks[0]!.origin}${path}`));
        said.push(`${path}: exit ${r.code} ${r.stdout.split("\n")[1]} ${r.stderr.split("\n")[0]}`);
      }
      const s1 = w.sinks[0]!;
      // The redirecting paths were asked for (the case is not vacuous)...
      expect(s1.received.map((a) => a.url)).toEqual(expect.arrayContaining(paths));
      // ...and nothing was made of their answers outside the grant.
      expect(shown(s1.received.filter((a) => !a.url.startsWith("/public/"))), said.join("\n")).toBe("(nothing)");
    },
    SLOW,
  );

  it(
    "GET through a redirect: /admin receives nothing either",
    async () => {
      const before = w.sinks[0]!.received.length;
      const r = await w.run(get(`${w.sinks[0]!.origin}/public/r302`));
      expect(
        shown(w.sinks[0]!.received.slice(before).filter((a) => !a.url.startsWith("/public/"))),
        r.stdout + r.stderr,
      ).toBe("(nothing)");
    },
    SLOW,
  );

  it(
    "to another allowlisted host (absolute or scheme-relative): that host receives nothing",
    async () => {
      const said: string[] = [];
      for (const path of ["/public/x302", "/public/x307", "/public/x308", "/public/scheme-relative"]) {
        const r = await w.run(post(`${w.sinks[0]!.origin}${path}`));
        said.push(`${path}: exit ${r.code} ${r.stderr.split("\n")[0]}`);
      }
      expect(shown(w.sinks[2]!.received), said.join("\n")).toBe("(nothing)");
    },
    SLOW,
  );

  it(
    "the email provider redirects the send to /admin on its host: neither the token nor the message reaches it",
    async () => {
      const r = await w.run(
        program(
          `    try { await sendEmail({ to: ["me@example.com"], subject: "s", body: "MAILBODY-31c2" }); } catch {}`,
          { imports: `import { sendEmail } from "trusted/email";` },
        ),
      );
      const s2 = w.sinks[1]!;
      expect(
        s2.received.map((a) => a.url),
        r.stdout + r.stderr,
      ).toContain("/gmail/v1/users/me/messages/send");
      const leaked = s2.received.filter((a) => a.url !== "/gmail/v1/users/me/messages/send");
      expect(
        leaked
          .filter((a) => JSON.stringify(a.headers).includes(w.gmailToken))
          .map((a) => `${a.method} ${a.url} carried the provider token`),
      ).toEqual([]);
      expect(shown(leaked), r.stdout + r.stderr).toBe("(nothing)");
    },
    SLOW,
  );
});
