// Statements issued together report the failure of the first one issued, whichever settles first.
import { describe, expect, it } from "vitest";
import { allInOrder } from "../../src/store/all-in-order.js";

const later = <T>(ms: number, value: T, fail = false): Promise<T> =>
  new Promise((resolve, reject) => setTimeout(() => (fail ? reject(new Error(String(value))) : resolve(value)), ms));

describe("allInOrder", () => {
  it("answers the values in the order given, skipping the slots where nothing was issued", async () => {
    expect(await allInOrder([later(20, "a"), undefined, later(1, "b")])).toEqual(["a", "b"]);
  });

  it("reports the first statement's failure though a later one failed sooner", async () => {
    await expect(
      allInOrder([later(1, "ok"), later(30, "the cause", true), later(1, "transaction aborted", true)]),
    ).rejects.toThrow("the cause");
  });
});
