import { describe, expect, it } from "vitest";
import { parseSubcommand, positiveFlag } from "../../src/cli/parse-flags.js";
import { CountersignError } from "../../src/model/errors.js";

const spec = {
  options: { json: { type: "boolean" as const }, db: { type: "string" as const } },
  subs: ["add", "list"] as const,
  forms: "thing add | list",
  maxArgs: 1,
};

function usageMessage(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(CountersignError);
    expect((err as CountersignError).class).toBe("usage_error");
    return (err as Error).message;
  }
  throw new Error("expected a usage error");
}

describe("parseSubcommand", () => {
  it("returns the flags, the subcommand and its arguments", () => {
    expect(parseSubcommand(["add", "alice", "--db", "x.sqlite", "--json"], spec)).toEqual({
      values: { db: "x.sqlite", json: true },
      sub: "add",
      args: ["alice"],
    });
    expect(parseSubcommand(["list"], spec)).toEqual({ values: {}, sub: "list", args: [] });
  });

  it("names the forms when the subcommand is missing or unknown", () => {
    expect(usageMessage(() => parseSubcommand([], spec))).toBe("missing subcommand: thing add | list");
    expect(usageMessage(() => parseSubcommand(["remove"], spec))).toBe(
      'unknown subcommand "remove"; try: thing add | list',
    );
  });

  it("refuses an argument past the last one the subcommand takes, and an unknown flag", () => {
    expect(usageMessage(() => parseSubcommand(["add", "a", "b"], spec))).toBe('unexpected argument "b"');
    expect(usageMessage(() => parseSubcommand(["add", "--nope"], spec))).toMatch(/--nope/);
  });
});

describe("positiveFlag", () => {
  it("reads a positive integer up to the maximum and refuses the rest", () => {
    expect(positiveFlag(undefined, "--n")).toBeUndefined();
    expect(positiveFlag("12", "--n", 60)).toBe(12);
    for (const bad of ["0", "-1", "1.5", "01", "61", " 3"])
      expect(usageMessage(() => positiveFlag(bad, "--n", 60))).toMatch(/^--n must be a positive integer up to 60/);
  });
});
