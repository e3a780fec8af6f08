// The static checks on a URL argument judge what will be sent. The wrapper sends a URL's canonical
// form (or refuses it), and checks the grant — which holds the constraint of the facts — on that
// form; so every URL sent is a member of the (canonicalized) abstract value the policy judged, and
// holds' yes and no must hold for it. Partly known URLs come with dot segments, encodings, line
// breaks, backslashes and other spellings of hosts in their known and unknown parts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalAbstract, constraintOf, holds, satisfies } from "../../src/constraint/index.js";
import { canonicalUrl } from "../../src/constraint/canonical-url.js";
import type { AbstractValue } from "../../src/model/abstract.js";
import type { ValueConstraint } from "../../src/model/constraint.js";
import { hostConstraintArb, isMember, urlMemberArb, urlShapeArb } from "./arbitraries.js";

const leafArb: fc.Arbitrary<ValueConstraint> = fc.oneof(
  fc
    .constantFrom(
      "https://api.x.com/public/",
      "https://api.x.com/admin",
      "https://api.x.com/",
      "http://api.x.com:8443/",
      "https://api.x.com",
    )
    .map((prefix) => ({ prefix })),
  fc
    .constantFrom("https://api.x.com/public/*", "https://api.x.com/admin*", "*/admin*", "*..*", "*%2e*", "https://*")
    .map((glob) => ({ glob })),
  fc.constantFrom("https://api.x.com/", "https://api.x.com/public/", "https://api.x.com/admin").map((eq) => ({ eq })),
  fc.constantFrom("/v1", "/admin", "@evil.com").map((suffix) => ({ suffix })),
  hostConstraintArb,
);
const constraintArb = fc.oneof(
  leafArb,
  leafArb.map((c) => ({ not: c })),
  fc.tuple(leafArb, leafArb).map(([a, b]) => ({ all: [a, b] })),
);

// Half the completions plain (the tricky ones are mostly refused, and then judge nothing).
const PLAIN = ["", "a", "v1/", "public/x", "admin", "admin/x", "x?y=1", "#f", "/v1"];
const membersOf = (v: AbstractValue) =>
  fc.oneof(
    urlMemberArb(v),
    v.kind === "string" ? fc.constantFrom(...PLAIN).map((middle) => v.prefix + middle + v.suffix) : urlMemberArb(v),
  );

// A known prefix that holds the scheme, `//`, the authority and the character that ends it.
const CLOSED = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*[/?#]/;

describe("static checks on URL arguments judge the URL that is sent", () => {
  it("yes and no hold for every URL the wrapper would send under the grant", () => {
    const seen = { yes: 0, no: 0, maybe: 0, refused: 0, outside: 0 };
    fc.assert(
      fc.property(
        constraintArb,
        urlShapeArb.chain((v) => fc.tuple(fc.constant(v), fc.array(membersOf(v), { minLength: 1, maxLength: 16 }))),
        (c, [raw, members]) => {
          const judged = canonicalAbstract("url", raw);
          const grant = constraintOf([judged])!;
          const verdict = holds(c, judged);
          for (const m of members) {
            const form = canonicalUrl(m as string);
            if (!form.ok) {
              seen.refused++;
              continue;
            }
            if (!satisfies(grant, form.canonical)) {
              seen.outside++; // refused by the grant at run time: nothing sent
              continue;
            }
            seen[verdict]++;
            if (verdict !== "maybe")
              expect(satisfies(c, form.canonical), JSON.stringify({ m, sent: form.canonical, judged })).toBe(
                verdict === "yes",
              );
          }
        },
      ),
      { numRuns: 5000 },
    );
    // Typical counts: yes 400-500, no 850-900 of some 1,500 sent; most tricky members are refused.
    expect(seen.yes).toBeGreaterThan(200);
    expect(seen.no).toBeGreaterThan(400);
    expect(seen.refused).toBeGreaterThan(300);
  });

  it("a URL sent from a known origin is a member of what was judged, so the grant does not refuse it", () => {
    let checked = 0;
    fc.assert(
      fc.property(
        urlShapeArb.chain((v) => fc.tuple(fc.constant(v), fc.array(membersOf(v), { minLength: 1, maxLength: 16 }))),
        ([raw, members]) => {
          if (raw.kind !== "string" || !CLOSED.test(raw.prefix)) return;
          const judged = canonicalAbstract("url", raw);
          for (const m of members) {
            const form = canonicalUrl(m as string);
            if (!form.ok) continue;
            checked++;
            expect(isMember(form.canonical, judged), JSON.stringify({ m, sent: form.canonical, judged })).toBe(true);
          }
        },
      ),
      { numRuns: 3000 },
    );
    expect(checked).toBeGreaterThan(300);
  });

  it("rewrites a known origin to its canonical spelling, and nothing it cannot rewrite exactly", () => {
    const shape = (prefix: string, suffix = "") => ({ kind: "string" as const, prefix, suffix, provenance: [] });
    expect(canonicalAbstract("url", shape("HTTPS://API.X.com:443/public/", "/v1"))).toEqual(
      shape("https://api.x.com/public/", "/v1"),
    );
    expect(canonicalAbstract("url", shape("http://api.x.com:80?q="))).toEqual(shape("http://api.x.com/?q="));
    for (const prefix of [
      "HTTPS://API.X.com",
      "https://u@api.x.com/",
      "https://0x7f.1/",
      "https://api.x.com\\",
      "ht",
      "",
    ])
      expect(canonicalAbstract("url", shape(prefix))).toEqual(shape(prefix));
    expect(
      canonicalAbstract("url", { kind: "const", values: ["HTTPS://API.X.com", "https://x.com/a/../b", null] }),
    ).toEqual({ kind: "const", values: ["https://api.x.com/", "https://x.com/a/../b", null] });
    expect(canonicalAbstract("path", shape("/a/../"))).toEqual(shape("/a/../"));
  });
});
