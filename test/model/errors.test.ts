import { describe, expect, it } from "vitest";
import { CountersignError, ErrorEnvelope, toEnvelope } from "../../src/model/errors.js";

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
});
