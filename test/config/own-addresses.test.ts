// The user's own address, as the policy's own_address reads it: from connections.toml, or none.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ownAddresses } from "../../src/config/index.js";

const dataDirWith = (connections?: string): string => {
  const dir = mkdtempSync(join(tmpdir(), "countersign-own-"));
  if (connections !== undefined) writeFileSync(join(dir, "connections.toml"), connections);
  return dir;
};

describe("ownAddresses", () => {
  it("is the email connection's address", () => {
    expect(ownAddresses(dataDirWith('[email]\naddress = "me@example.com"\n'))).toEqual(["me@example.com"]);
  });

  it("is none without an address, without an email connection or without the file", () => {
    expect(ownAddresses(dataDirWith('[email]\nbase_url = "https://mail.example.com"\n'))).toEqual([]);
    expect(ownAddresses(dataDirWith('[http]\nhosts = ["api.example.com:443"]\n'))).toEqual([]);
    expect(ownAddresses(dataDirWith())).toEqual([]);
  });

  it("is none when another table of the file is refused: the runner reports that one", () => {
    const dir = dataDirWith();
    writeFileSync(join(dir, "connections.toml"), `[email]\naddress = "me@example.com"\n\n[fs]\nroots = ["${dir}"]\n`);
    expect(ownAddresses(dir)).toEqual([]);
  });

  it("refuses a malformed address with the file and key", () => {
    expect(() => ownAddresses(dataDirWith('[email]\naddress = "me at example"\n'))).toThrow(
      /connections\.toml:2: email\.address: must be one email address/,
    );
  });
});
