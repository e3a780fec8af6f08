import { mkdirSync, mkdtempSync, renameSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dataDir, defaultPolicyDir, homeDir, manifestDirFor } from "../../src/config/index.js";
import { main } from "../../src/cli/main.js";
import type { Io } from "../../src/cli/command.js";
import { CountersignError } from "../../src/model/errors.js";
import { packageRoot } from "../../src/model/paths.js";

describe("dataDir", () => {
  it("is $COUNTERSIGN_HOME, resolved", () => {
    expect(dataDir({ COUNTERSIGN_HOME: "/srv/cs/../cs2", HOME: "/home/me" })).toBe("/srv/cs2");
  });

  it("is <home>/.countersign when COUNTERSIGN_HOME is unset, for the HOME of the environment given", () => {
    expect(dataDir({ HOME: "/home/me" })).toBe("/home/me/.countersign");
    expect(dataDir({})).toBe(join(userInfo().homedir, ".countersign"));
  });

  it("refuses an empty COUNTERSIGN_HOME with a config_error instead of falling back", () => {
    for (const value of ["", "  "]) {
      const err = (() => {
        try {
          dataDir({ COUNTERSIGN_HOME: value, HOME: "/home/me" });
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(CountersignError);
      expect(err).toMatchObject({ class: "config_error", details: { variable: "COUNTERSIGN_HOME" } });
    }
  });
});

describe("homeDir", () => {
  it("is $HOME, else the account's home", () => {
    expect(homeDir({ HOME: "/home/me/" })).toBe("/home/me");
    expect(homeDir({ HOME: "" })).toBe(userInfo().homedir);
    expect(homeDir({})).toBe(userInfo().homedir);
  });
});

describe("the user's manifests and policies", () => {
  it("are used when their directory exists in the data directory, else the shipped ones", () => {
    const data = mkdtempSync(join(tmpdir(), "countersign-data-"));
    expect(manifestDirFor(data)).toEqual({ dir: join(packageRoot, "manifests"), own: false });
    expect(defaultPolicyDir(data)).toBe(join(packageRoot, "policies"));
    mkdirSync(join(data, "manifests"));
    mkdirSync(join(data, "policies"));
    expect(manifestDirFor(data)).toEqual({ dir: join(data, "manifests"), own: true });
    expect(manifestDirFor(data, "/elsewhere")).toEqual({ dir: "/elsewhere", own: false });
    expect(defaultPolicyDir(data)).toBe(join(data, "policies"));
    renameSync(join(data, "policies"), join(data, "gone"));
    expect(defaultPolicyDir(data)).toBe(join(packageRoot, "policies"));
  });
});

describe("the test environment", () => {
  it("points HOME and COUNTERSIGN_HOME into the run's temp folder", () => {
    const root = tmpdir();
    expect(process.env.HOME?.startsWith(`${root}/`)).toBe(true);
    expect(process.env.COUNTERSIGN_HOME?.startsWith(`${root}/`)).toBe(true);
    expect(dataDir(process.env).startsWith(`${root}/`)).toBe(true);
  });
});

describe("every command with COUNTERSIGN_HOME empty", () => {
  it("fails with config_error (exit 2), even one given every directory", async () => {
    for (const argv of [
      ["keys", "list", "--json"],
      ["manifests", "check", packageRoot + "/manifests", "--json"],
      ["policy", "check", "--json"],
    ]) {
      const out: string[] = [];
      const io: Io = {
        stdout: (t) => void out.push(t),
        stderr: () => undefined,
        readStdin: async () => "",
        env: { COUNTERSIGN_HOME: "", HOME: tmpdir() },
        cwd: tmpdir(),
      };
      expect(await main(argv, io), argv.join(" ")).toBe(2);
      expect(JSON.parse(out.join("")).error, argv.join(" ")).toMatchObject({
        class: "config_error",
        message: expect.stringMatching(/^COUNTERSIGN_HOME is set but empty/),
      });
    }
  });
});
