import { describe, expect, it } from "vitest";
import { describeConstraint, holds, implies, satisfies } from "../../src/constraint/index.js";
import { readJsonText } from "../../src/constraint/json-text.js";
import type { AbstractValue } from "../../src/model/abstract.js";
import { ValueConstraint } from "../../src/model/constraint.js";
import { parseJsonPath } from "../../src/model/json-path.js";
import { MARSHAL_LIMITS } from "../../src/model/marshal-limits.js";
import type { Json } from "../../src/model/json.js";

const c = (...values: Json[]): AbstractValue => ({ kind: "const", values });
const str = (prefix: string, suffix = "", untrusted = false): AbstractValue => ({
  kind: "string",
  prefix,
  suffix,
  provenance: [{ source: "result of web.fetch", untrusted, op: "web.fetch" }],
});
const unknown: AbstractValue = {
  kind: "unknown",
  provenance: [{ source: "result of email.get_draft", untrusted: true, op: "email.get_draft" }],
};

/** The body's recipient is one of ours. */
const toOurs: ValueConstraint = { json: { at: { path: "$.to", is: { in: ["ok@x.com"] } } } };
const body = (value: Json) => JSON.stringify(value);

describe("json: a string's parsed value", () => {
  it("holds of a string whose JSON value satisfies the inner constraint, and of nothing else", () => {
    expect(satisfies(toOurs, body({ to: "ok@x.com", amount: 5 }))).toBe(true);
    expect(satisfies(toOurs, body({ to: "evil@y.com" }))).toBe(false);
    expect(satisfies({ json: { elements: { in: [1, 2] } } }, "[1, 2]")).toBe(true);
    expect(satisfies({ json: { type: ["null"] } }, "null")).toBe(true);
  });

  it("fails on a string that does not parse, and on a non-string", () => {
    for (const text of ["", "{", '{"to":"ok@x.com"', "{'to':'ok@x.com'}", '{"to":"ok@x.com"} trailing'])
      expect(satisfies(toOurs, text), text).toBe(false);
    expect(satisfies(toOurs, { to: "ok@x.com" })).toBe(false);
    expect(satisfies({ json: { all: [] } }, 5)).toBe(false);
  });

  it("looks at a list as a whole: a list of bodies is not a string", () => {
    expect(satisfies({ json: { all: [] } }, [body({ to: "ok@x.com" })])).toBe(false);
    expect(satisfies({ json: { all: [] } }, [])).toBe(false);
  });

  it("reads a key spelled with escapes as JSON does: an attacker's \\u0074o is to", () => {
    const hidden = '{"\\u0074o":"evil@y.com"}';
    expect(JSON.parse(hidden)).toEqual({ to: "evil@y.com" });
    expect(satisfies(toOurs, hidden)).toBe(false);
    expect(satisfies({ json: { at: { path: "$.to", is: { in: ["evil@y.com"] } } } }, hidden)).toBe(true);
    expect(satisfies({ json: { at: { path: '$["\\u0074o"]', is: { in: ["evil@y.com"] } } } }, hidden)).toBe(true);
  });

  it("refuses a text naming one key twice, however it is spelled: parsers disagree on which counts", () => {
    expect(readJsonText('{"to":"ok@x.com","to":"evil@y.com"}')).toEqual({ ok: false, why: "duplicate_key" });
    expect(readJsonText('{"to":"ok@x.com","\\u0074o":"evil@y.com"}')).toEqual({ ok: false, why: "duplicate_key" });
    expect(readJsonText('{"p":{"to":"ok@x.com", "to" : "evil@y.com"}}')).toEqual({ ok: false, why: "duplicate_key" });
    expect(satisfies(toOurs, '{"to":"evil@y.com","to":"ok@x.com"}')).toBe(false);
    // The fail-closed way to write a deny condition fires on it.
    expect(satisfies({ not: toOurs }, '{"to":"evil@y.com","to":"ok@x.com"}')).toBe(true);
  });

  it("keeps keys apart that only look alike, and strings that look like keys", () => {
    expect(readJsonText('{"to":"a","To":"b","t\\"o":"c"}').ok).toBe(true);
    expect(readJsonText('{"a":"to","b":"to:","c":["to","to"]}').ok).toBe(true);
    expect(readJsonText('[{"to":1},{"to":2}]').ok).toBe(true);
  });

  it("bounds nesting as a trusted call's arguments are bounded, and length too", () => {
    const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
    expect(readJsonText(deep(MARSHAL_LIMITS.maxDepth)).ok).toBe(true);
    expect(readJsonText(deep(MARSHAL_LIMITS.maxDepth + 1))).toEqual({ ok: false, why: "too_deep" });
    expect(satisfies({ json: { all: [] } }, deep(100_000))).toBe(false);
    expect(readJsonText(`"${"a".repeat(MARSHAL_LIMITS.maxChars)}"`)).toEqual({ ok: false, why: "too_long" });
  });
});

describe("at: one field, the object left open", () => {
  const payment = { payment: { to: "DE89370400440532013000", amount: 10 }, note: "rent" };

  it("checks the value at the path and leaves the other fields free", () => {
    expect(satisfies({ at: { path: "$.payment.to", is: { eq: "DE89370400440532013000" } } }, payment)).toBe(true);
    expect(satisfies({ at: { path: "$.payment.to", is: { eq: "GB00EVIL" } } }, payment)).toBe(false);
    expect(satisfies({ at: { path: "$", is: { type: ["object"] } } }, payment)).toBe(true);
  });

  it("reads a missing field, or a field of what is no object, as null", () => {
    expect(satisfies({ at: { path: "$.payment.iban", is: { eq: null } } }, payment)).toBe(true);
    expect(satisfies({ at: { path: "$.note.to", is: { eq: null } } }, payment)).toBe(true);
    expect(satisfies({ at: { path: "$.to", is: { eq: null } } }, [{ to: "evil@y.com" }])).toBe(true);
    expect(satisfies({ at: { path: "$.constructor", is: { eq: null } } }, {})).toBe(true);
  });

  it("[*] checks every element; on what is no list it reads null", () => {
    const batch = { items: [{ to: "ok@x.com" }, { to: "evil@y.com" }] };
    expect(satisfies({ at: { path: "$.items[*].to", is: { in: ["ok@x.com"] } } }, batch)).toBe(false);
    expect(satisfies({ at: { path: "$.items[*].to", is: { in: ["ok@x.com", "evil@y.com"] } } }, batch)).toBe(true);
    expect(satisfies({ at: { path: "$.items[*].to", is: { in: ["ok@x.com"] } } }, { items: [] })).toBe(true);
    expect(satisfies({ at: { path: "$.items[*]", is: { eq: null } } }, { items: "x" })).toBe(true);
  });

  it("a quoted key names any field, dots and all", () => {
    expect(satisfies({ at: { path: '$["reply-to"]["a.b"]', is: { eq: 1 } } }, { "reply-to": { "a.b": 1 } })).toBe(true);
  });
});

describe("static verdicts", () => {
  it("a constant body is parsed and checked", () => {
    expect(holds(toOurs, c(body({ to: "ok@x.com" })))).toBe("yes");
    expect(holds(toOurs, c(body({ to: "evil@y.com" })))).toBe("no");
    expect(holds(toOurs, c(body({ to: "ok@x.com" }), body({ to: "evil@y.com" })))).toBe("maybe");
    expect(holds(toOurs, c("not json"))).toBe("no");
  });

  it("a partly known or unknown body is maybe, even for an inner constraint that holds of everything", () => {
    expect(holds(toOurs, str('{"to":"ok@x.com","memo":"', '"}'))).toBe("maybe");
    expect(holds({ json: { all: [] } }, str("{"))).toBe("maybe");
    expect(holds({ not: toOurs }, str('{"to":"'))).toBe("maybe");
    expect(holds(toOurs, unknown)).toBe("maybe");
  });

  it("a record or a list is no string", () => {
    expect(holds({ json: { all: [] } }, { kind: "record", fields: { to: c("ok@x.com") } })).toBe("no");
    expect(holds({ json: { all: [] } }, { kind: "array", element: c("{}"), length: { min: 0, max: 3 } })).toBe("no");
  });

  it("at follows the path through records and arrays", () => {
    const record: AbstractValue = {
      kind: "record",
      fields: {
        to: str("", "@x.com"),
        items: {
          kind: "array",
          element: { kind: "record", fields: { to: c("ok@x.com") } },
          length: { min: 0, max: null },
        },
      },
    };
    expect(holds({ at: { path: "$.to", is: { glob: "*@x.com" } } }, record)).toBe("yes");
    expect(holds({ at: { path: "$.to", is: { in: ["evil@y.com"] } } }, record)).toBe("no");
    expect(holds({ at: { path: "$.cc", is: { eq: null } } }, record)).toBe("yes");
    expect(holds({ at: { path: "$.items[*].to", is: { in: ["ok@x.com"] } } }, record)).toBe("yes");
    expect(holds({ at: { path: "$.items[*].to", is: { in: ["evil@y.com"] } } }, record)).toBe("maybe"); // the list may be empty
    expect(holds({ at: { path: "$.to", is: { eq: null } } }, str("a"))).toBe("yes");
    expect(holds({ at: { path: "$.to", is: { eq: "a" } } }, unknown)).toBe("maybe");
  });

  it("provenance inside json reads the sources of the whole string", () => {
    const fromPage: ValueConstraint = { json: { at: { path: "$.to", is: { untrusted: true } } } };
    expect(holds(fromPage, str('{"to":"', '"}', true))).toBe("maybe");
    expect(holds(fromPage, c(body({ to: "ok@x.com" })))).toBe("no"); // a constant the program wrote
    const trusted: ValueConstraint = { json: { at: { path: "$.to", is: { untrusted: false } } } };
    expect(holds(trusted, c(body({ to: "ok@x.com" })))).toBe("yes");
  });
});

describe("reasoning and words", () => {
  it("implies goes inside json and through one path however spelled", () => {
    const narrow: ValueConstraint = { json: { at: { path: '$["to"]', is: { in: ["ok@x.com"] } } } };
    expect(implies(narrow, { json: { at: { path: "$.to", is: { in: ["ok@x.com", "b@x.com"] } } } })).toBe(true);
    expect(implies(narrow, { json: { at: { path: "$.cc", is: { in: ["ok@x.com"] } } } })).toBe(false);
    expect(implies({ json: { at: { path: "$.to", is: { in: ["ok@x.com", "b@x.com"] } } } }, narrow)).toBe(false);
  });

  it("describes both keys in plain words", () => {
    expect(describeConstraint(toOurs)).toBe("is JSON text (each key once) whose value at $.to is in [ok@x.com]");
    expect(describeConstraint({ not: toOurs })).toBe(
      "does not satisfy (is JSON text (each key once) whose value at $.to is in [ok@x.com])",
    );
    expect(
      describeConstraint({ at: { path: "$.items[*].to", is: { all: [{ glob: "*@x.com" }, { max_length: 40 }] } } }),
    ).toBe("at $.items[*].to (matches *@x.com and has length at most 40)");
  });
});

describe("the schema", () => {
  it("parses the new keys, nested, as a grant would carry them", () => {
    const guard = { not: { json: { at: { path: "$.items[*].to", is: { mailbox_in: ["ok@x.com"] } } } } };
    expect(ValueConstraint.parse(guard)).toEqual(guard);
  });

  it("refuses a path it cannot read, with a clear message", () => {
    for (const path of ["to", "$.", "$..to", "$[0]", "$.a b", '$["unclosed]', '$["\\x"]', "$.to[*"]) {
      expect(parseJsonPath(path), path).toBeUndefined();
      const parsed = ValueConstraint.safeParse({ at: { path, is: { eq: 1 } } });
      expect(parsed.success, path).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/must be a path such as \$\.payment\.to/);
    }
    expect(ValueConstraint.safeParse({ at: { path: "$.to" } }).success).toBe(false);
    expect(ValueConstraint.safeParse({ at: { path: "$.to", is: { eq: 1 }, extra: 1 } }).success).toBe(false);
  });

  it("reads paths into steps", () => {
    expect(parseJsonPath("$")).toEqual([]);
    expect(parseJsonPath('$.a[*]["b c"]._x1')).toEqual([
      { field: "a" },
      { every: true },
      { field: "b c" },
      { field: "_x1" },
    ]);
  });
});
