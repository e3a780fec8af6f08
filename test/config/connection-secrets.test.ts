// countersign's own secrets are out of a program's reach whatever connections.toml says: an fs
// root that contains, equals or lies inside the data directory or a token file is refused when
// the file is loaded, naming the root, the secret and what to do.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { connectorContext, loadConnections } from "../../src/config/index.js";
import { resolveCapabilities } from "../../src/connector/capabilities.js";
import { loadManifests } from "../../src/config/index.js";
import { packageRoot } from "../../src/model/paths.js";

/** A home folder holding a data directory `.countersign` with connections.toml `toml` (HOME and DATA replaced). */
function homeWith(toml: (home: string, data: string) => string): { home: string; data: string; file: string } {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "cs-secrets-")));
  const data = join(home, ".countersign");
  mkdirSync(join(data, "policies"), { recursive: true });
  mkdirSync(join(home, "Sandbox"));
  writeFileSync(join(data, "approver.secret"), "secret\n");
  const file = join(data, "connections.toml");
  writeFileSync(file, toml(home, data));
  return { home, data, file };
}

function loadError(data: string): unknown {
  try {
    loadConnections(data);
  } catch (err) {
    return err;
  }
  throw new Error("expected a config_error");
}

describe("connections.toml: fs roots and countersign's secrets", () => {
  it('refuses a root that contains the data directory (roots = ["~"]), naming both and the way out', () => {
    const { home, data, file } = homeWith((home) => `[fs]\nroots = ["${home}"]\n`);
    const err = loadError(data);
    expect(err).toMatchObject({
      class: "config_error",
      boundary: "connector",
      details: { file, key: "fs.roots", line: 2 },
    });
    expect((err as Error).message).toBe(
      `${file}:2: fs.roots: root ${home} contains the data directory (signing keys, approver secret, submitter tokens, the store) ${data}: ` +
        "a program could read countersign's own secrets through it; name folders that leave it out, or move the data directory with COUNTERSIGN_HOME",
    );
    // every way in refuses it: the runner's and the authority's connector context
    expect(() => connectorContext(data)).toThrow(
      expect.objectContaining({ class: "config_error", details: expect.objectContaining({ key: "fs.roots" }) }),
    );
  });

  it("refuses a root equal to the data directory and one inside it", () => {
    const same = homeWith((_, data) => `[fs]\nroots = ["${data}"]\n`);
    expect((loadError(same.data) as Error).message).toContain(`root ${same.data} is the data directory`);
    const inside = homeWith((_, data) => `[fs]\nroots = ["${join(data, "policies")}"]\n`);
    expect((loadError(inside.data) as Error).message).toContain(
      `root ${join(inside.data, "policies")} lies inside the data directory`,
    );
  });

  it("refuses a root that contains a connection's token file, naming the connection", () => {
    const { home, data } = homeWith(
      (home) =>
        `[email]\nbase_url = "http://127.0.0.1:1"\ntoken_file = "${join(home, "Sandbox", "gmail-token")}"\n\n[fs]\nroots = ["${join(home, "Sandbox")}"]\n`,
    );
    writeFileSync(join(home, "Sandbox", "gmail-token"), "tok\n");
    const err = loadError(data);
    expect(err).toMatchObject({ class: "config_error", details: { key: "fs.roots", line: 6 } });
    expect((err as Error).message).toContain(
      `root ${join(home, "Sandbox")} contains the token file of email.token_file ${join(home, "Sandbox", "gmail-token")}`,
    );
    expect((err as Error).message).toContain("move the token file out of the root");
  });

  it("compares real paths: a data directory named through a link, a root named through another", () => {
    const { home, data } = homeWith((home) => `[fs]\nroots = ["${join(home, "me")}"]\n`);
    symlinkSync(home, join(home, "me")); // a root that reads as elsewhere but is the home folder
    symlinkSync(data, join(home, "Sandbox", "cs")); // the data directory as the runner names it
    const err = loadError(join(home, "Sandbox", "cs"));
    expect((err as Error).message).toContain(`root ${join(home, "me")} (${home}) contains the data directory`);
  });

  it("refuses a root with `..` and the process files", () => {
    const dots = homeWith((home) => `[fs]\nroots = ["${join(home, "Sandbox")}/../Sandbox"]\n`);
    expect((loadError(dots.data) as Error).message).toContain("must not contain `..`");
    if (process.platform === "linux") {
      const proc = homeWith(() => `[fs]\nroots = ["/proc/self"]\n`);
      expect((loadError(proc.data) as Error).message).toMatch(
        /root \/proc\/self \(\/proc\/\d+\) lies inside the process files/,
      );
    }
  });

  it("refuses a root holding a secret the caller names, such as a store kept outside the data directory", () => {
    const { home, data } = homeWith((home) => `[fs]\nroots = ["${join(home, "Sandbox")}"]\n`);
    const store = join(home, "Sandbox", "countersign.db");
    expect(() => connectorContext(data, { secrets: [{ path: store, what: "the store" }] })).toThrow(
      expect.objectContaining({
        class: "config_error",
        message: expect.stringContaining(`root ${join(home, "Sandbox")} contains the store ${store}`),
      }),
    );
    expect(connectorContext(data).connections.byConnector.fs?.roots).toEqual([join(home, "Sandbox")]);
  });

  it("refuses a root holding countersign's own installation: a write there would change the next run's code or policy", () => {
    const installation = realpathSync(packageRoot);
    const { data: itself } = homeWith(() => `[fs]\nroots = ["${installation}"]\n`);
    expect((loadError(itself) as Error).message).toContain(
      `root ${installation} is countersign's own installation (its code, shipped policies and manifests) ${installation}`,
    );
    // The folder above: refused for the installation, or first for the data directory when that
    // lies there too (a clone in the temporary folder, where the tests make their data directories).
    const above = dirname(packageRoot);
    const { data } = homeWith(() => `[fs]\nroots = ["${above}"]\n`);
    const holdsData = realpathSync(data).startsWith(`${realpathSync(above)}/`);
    expect((loadError(data) as Error).message).toContain(
      holdsData
        ? `root ${above} contains the data directory`
        : `root ${above} contains countersign's own installation (its code, shipped policies and manifests) ${installation}`,
    );
    const { data: inside } = homeWith(() => `[fs]\nroots = ["${join(packageRoot, "policies")}"]\n`);
    expect((loadError(inside) as Error).message).toContain("lies inside countersign's own installation");
  });

  it("takes a root beside the data directory", () => {
    const { home, data } = homeWith((home) => `[fs]\nroots = ["${join(home, "Sandbox")}"]\n`);
    expect(loadConnections(data).byConnector.fs?.roots).toEqual([join(home, "Sandbox")]);
  });

  it("refuses, when an action starts, a root that has become a link to the data directory since", () => {
    const { home, data } = homeWith((home) => `[fs]\nroots = ["${join(home, "later")}"]\n`);
    const connections = loadConnections(data); // the root does not exist yet: nothing to compare
    symlinkSync(data, join(home, "later"));
    const fs = loadManifests(join(packageRoot, "manifests")).connectors.get("fs")!;
    expect(() => resolveCapabilities(fs, connections)).toThrow(
      expect.objectContaining({
        class: "config_error",
        message: expect.stringContaining("overlaps the data directory"),
      }),
    );
    rmSync(join(home, "later"));
  });
});
