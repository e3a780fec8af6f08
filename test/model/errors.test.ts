import { describe, expect, it } from "vitest";
import {
  BOUNDARIES,
  CountersignError,
  ERROR_CLASSES,
  ErrorEnvelope,
  readErrorEnvelope,
  toEnvelope,
} from "../../src/model/errors.js";

describe("error envelope", () => {
  it("carries class, boundary, retriable and details", () => {
    const err = new CountersignError("config_error", "connector", "missing [email] base_url", {
      details: { file: "connections.toml", key: "email.base_url" },
    });
    const envelope = err.toEnvelope();
    expect(ErrorEnvelope.parse(envelope)).toEqual(envelope);
    expect(envelope.error).toMatchObject({ class: "config_error", boundary: "connector", retriable: false });
    expect(envelope.error.details).toEqual({ file: "connections.toml", key: "email.base_url" });
  });

  it("turns unexpected throws into internal_error, never success", () => {
    expect(toEnvelope(new TypeError("boom")).error).toMatchObject({ class: "internal_error", message: "boom" });
    expect(toEnvelope("weird").error.class).toBe("internal_error");
  });

  it("rejects classes outside the closed set", () => {
    expect(() =>
      ErrorEnvelope.parse({ error: { class: "oops", message: "x", retriable: false, boundary: "cli" } }),
    ).toThrow();
  });

  // The plain reader of clients that load no zod holds to the schema: same verdict, same value.
  it("reads an envelope without zod exactly as the schema does", () => {
    const body = { class: "store_error", message: "m", retriable: true, boundary: "store" };
    const samples: unknown[] = [
      { error: body },
      { error: { ...body, request_id: "r1", details: { a: [1] } }, extra: 1 },
      { error: { ...body, unknown: "dropped" } },
      ...ERROR_CLASSES.map((c) => ({ error: { ...body, class: c } })),
      ...BOUNDARIES.map((b) => ({ error: { ...body, boundary: b } })),
      { error: { ...body, class: "oops" } },
      { error: { ...body, boundary: "moon" } },
      { error: { ...body, message: 1 } },
      { error: { ...body, retriable: "no" } },
      { error: { ...body, request_id: 7 } },
      { error: { ...body, details: "d" } },
      { error: { ...body, details: null } },
      { error: { ...body, message: undefined } },
      { error: [body] },
      { error: null },
      [{ error: body }],
      null,
      "error",
      {},
    ];
    for (const sample of samples) {
      const schema = ErrorEnvelope.safeParse(sample);
      expect({ sample, read: readErrorEnvelope(sample) }).toEqual({
        sample,
        read: schema.success ? schema.data : undefined,
      });
    }
  });
});
