import { describe, expect, it } from "vitest";
import { hostModules } from "../../src/sandbox/host-modules.js";
import { api, program, run, texts } from "./helpers.js";

// What a program imports from `trusted/...` is made by typed functions inside the realm, before
// the lockdown: frozen arrow functions that hand their op and arguments to the host, nothing else.
describe("the trusted modules a program imports", () => {
  it("export frozen arrow functions with no prototype and no own members to change", async () => {
    const r = await run(
      program(`for (const f of [sendEmail, writeFile, recipientsOnly]) {
  let changed = "changed";
  try {
    f.op = "fs.write_file";
  } catch (e) {
    changed = e instanceof TypeError ? "refused" : "other";
  }
  console.log(typeof f, changed, f.prototype === undefined, f.op === undefined);
}`),
    );
    expect(r.outcome).toBe("returned");
    expect(texts(r)).toEqual([
      "function refused true true",
      "function refused true true",
      "function refused true true",
    ]);
  });

  it("hand each action's own op and its argument, as given, to the host", async () => {
    const r = await run(program(`await writeFile({ path: "a.txt", content: "x" });\nawait listDir({ path: "." });`));
    expect(r.outcome).toBe("returned");
    expect(r.invoked).toEqual([
      { op: "fs.write_file", args: { path: "a.txt", content: "x" } },
      { op: "fs.list_dir", args: { path: "." } },
    ]);
  });

  it("give a contract helper what it was called with, built on the host", async () => {
    const r = await run(program(`console.log(JSON.stringify(recipientsOnly(["bob@example.com"])));`));
    expect(r.outcome).toBe("returned");
    expect(JSON.parse(texts(r)[0]!)).toEqual({ op: "email.*", args: { to: { in: ["bob@example.com"] } } });
  });

  it("name exactly the connector's functions as exports, and refuse a name that is no identifier", () => {
    const email = hostModules(api).get("trusted/email")!;
    const exported = /export \{ ([^}]*) \};/.exec(email)![1]!.split(", ");
    expect(exported.sort()).toEqual(Object.keys(api.actions.email!).sort());
    const hostile = { actions: { x: { "send-mail": "x.send_mail" } }, contracts: {} };
    expect(() => hostModules(hostile)).toThrow(/cannot export "send-mail"/);
    const injected = { actions: { x: { "a } from 'y'; //": "x.a" } }, contracts: {} };
    expect(() => hostModules(injected)).toThrow(/cannot export/);
  });
});
