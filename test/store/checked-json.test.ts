// The store's cache of checked JSON: a hit answers exactly what checking the same text answers.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CountersignError } from "../../src/model/errors.js";
import { CheckedJson } from "../../src/store/checked-json.js";

const Schema = z.object({ name: z.string(), count: z.number().int(), at: z.string().optional() }).strict();

function refusal(fn: () => unknown): CountersignError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CountersignError);
    return err as CountersignError;
  }
  throw new Error("expected a refusal");
}

describe("CheckedJson", () => {
  it("answers a checked, frozen value and its JSON, the same object for equal text", () => {
    const cache = new CheckedJson(Schema, "thing");
    const first = cache.check({ name: "a", count: 1 });
    expect(first).toEqual({ value: { name: "a", count: 1 }, json: '{"name":"a","count":1}' });
    expect(Object.isFrozen(first.value)).toBe(true);
    const again = cache.check({ name: "a", count: 1 });
    expect(again.value).toBe(first.value);
    expect(() => {
      (again.value as { count: number }).count = 2;
    }).toThrow(TypeError);
  });

  it("refuses invalid values every time, whatever was checked before", () => {
    const cache = new CheckedJson(Schema, "thing");
    cache.check({ name: "a", count: 1 });
    for (let i = 0; i < 2; i++) {
      const err = refusal(() => cache.check({ name: "a", count: 1.5 }));
      expect(err.class).toBe("usage_error");
      expect(err.message).toMatch(/invalid thing \(count\)/);
    }
    expect(refusal(() => cache.check({ name: "a", count: 1, extra: true })).message).toMatch(/invalid thing/);
    expect(refusal(() => cache.check(undefined)).message).toMatch(/invalid thing/);
    expect(refusal(() => cache.check(() => 1)).message).toMatch(/invalid thing/);
  });

  it("checks the JSON a value is stored as, not what JSON drops: a hit and a miss agree", () => {
    // A Date is stored as its ISO text and an undefined member is not stored: both check as the text.
    const at = new Date(0);
    const raw = { name: "a", count: 1, at, gone: undefined };
    const miss = new CheckedJson(Schema, "thing").check(raw);
    expect(miss.value).toEqual({ name: "a", count: 1, at: at.toISOString() });
    const cache = new CheckedJson(Schema, "thing");
    cache.check({ name: "a", count: 1, at: at.toISOString() });
    expect(cache.check(raw)).toEqual(miss);
    // NaN is stored as null: refused as the number it is not, hit or miss
    expect(refusal(() => cache.check({ name: "a", count: Number.NaN })).message).toMatch(/count/);
  });

  it("forgets the least recently used texts past its size", () => {
    const cache = new CheckedJson(Schema, "thing", 100);
    const a = cache.check({ name: "a", count: 1 }).value; // 2 × 22 characters
    cache.check({ name: "b", count: 1 });
    expect(cache.check({ name: "a", count: 1 }).value).toBe(a); // a is now the most recent
    cache.check({ name: "c", count: 1 }); // past 100: b goes
    expect(cache.check({ name: "a", count: 1 }).value).toBe(a);
    const c = cache.check({ name: "c", count: 1 }).value;
    cache.check({ name: "b", count: 1 }); // checked anew; a goes
    expect(cache.check({ name: "c", count: 1 }).value).toBe(c);
    expect(cache.check({ name: "a", count: 1 }).value).not.toBe(a);
  });
});

describe("CheckedJson by identity", () => {
  it("answers a deeply frozen object by identity, and checks anything that could have changed by its text", () => {
    const cache = new CheckedJson(Schema, "thing");
    const frozen = Object.freeze({ name: "a", count: 1 });
    const first = cache.check(frozen);
    expect(cache.check(frozen)).toBe(first);
    // not frozen all the way, or frozen with a getter: checked again, so a change is seen
    const open = { name: "a", count: 1 };
    cache.check(open);
    open.count = 1.5;
    expect(() => cache.check(open)).toThrow(/count/);
    let n = 1;
    const getter = Object.freeze({
      name: "a",
      get count() {
        return n;
      },
    });
    expect(cache.check(getter).value).toEqual({ name: "a", count: 1 });
    n = 1.5;
    expect(() => cache.check(getter)).toThrow(/count/);
    const nested = Object.freeze({ name: "a", count: 1, at: { when: "now" } });
    expect(() => new CheckedJson(Schema, "thing").check(nested)).toThrow(/at/); // refused, whatever path it took
  });
});
