// A person reads what a program that reads the mailbox does in plain words, not op names.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { readWords } from "../../src/app/plain-words.js";
import { doing } from "../../src/app/questions/words.js";
import { requestGlance } from "../../src/app/request-glance.js";
import { loadPolicy } from "../../src/config/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { shippedManifests } from "../policy/helpers.js";
import { storedRequest } from "../support/stored-request.js";

const manifests = shippedManifests();
const policy = loadPolicy(join(packageRoot, "policies"), { manifests, home: "/home/user" });
const analyzer = createAnalyzer(manifests);
afterAll(() => analyzer.dispose());

const example = (name: string) =>
  storedRequest({ analyzer, policy, manifests }, readFileSync(join(packageRoot, "examples", name), "utf8"), name);

describe("mailbox reads in plain words", () => {
  it("says a program lists and reads mail in the person's mailbox", () => {
    const effects = example("read-inbox.ts").facts.effects;
    expect(effects.map((e) => doing(e))).toEqual(["lists messages in your mailbox", "reads an email in your mailbox"]);
    expect(readWords("email.list_messages", effects)).toBe("the list of messages in your mailbox");
  });

  it("says a recipient was read from a message in the mailbox, and what the search looks for", () => {
    const request = example("follow-the-mail.ts");
    const glance = JSON.stringify(requestGlance(request, { manifests }));
    expect(glance).toContain(
      "Sends 1 email to an address read from a message in your mailbox, runs 1 mailbox search: forward and reads 1 message.",
    );
    expect(glance).toContain("the list of messages in your mailbox chooses the id of email.get_message");
    expect(glance).not.toMatch(/what email\.\w+ returns/);
  });
});
