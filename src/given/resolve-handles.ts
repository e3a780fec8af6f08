import {
  CountersignError,
  type AbstractValue,
  type Effect,
  type Facts,
  type Provenance,
  type ResultPart,
} from "../model/index.js";

/** What the authority holds of one handle: the ops its value may derive from, and the request whose run gave it. */
export interface KnownHandle {
  from: string[];
  request: string;
}

/**
 * The facts of a program that took up quarantined results (`fromHandle`), with each handle's
 * sources made exact: every source naming a handle becomes one source per op the held value may
 * derive from ("result of email.get_draft in request req_…, held as h_…"), still untrusted, so
 * that rules on `from` see through the handle. Everywhere: arguments, their sources, what
 * influenced each call, and the parts of the value. A handle not in `known` (not this submitter's,
 * expired, or never given) is a usage_error with details.reason `unknown_handle`. Pure.
 */
export function resolveHandles(facts: Facts, known: ReadonlyMap<string, KnownHandle>): Facts {
  const resolved = new Map<string, Provenance[]>();
  const sources = (list: Provenance[]): Provenance[] =>
    list.some((p) => p.handle !== undefined) ? list.flatMap(resolveOne) : list;
  const resolveOne = (p: Provenance): Provenance[] => {
    if (p.handle === undefined) return [p];
    let entries = resolved.get(p.handle);
    if (entries === undefined) resolved.set(p.handle, (entries = exactSources(p.handle, known)));
    return entries;
  };
  const done = new WeakMap<AbstractValue, AbstractValue>();
  const value = (v: AbstractValue): AbstractValue => {
    let out = done.get(v);
    if (out !== undefined) return out;
    switch (v.kind) {
      case "const":
        out = v;
        break;
      case "string":
      case "unknown":
        out = { ...v, provenance: sources(v.provenance) };
        break;
      case "array":
        out = { ...v, element: value(v.element) };
        break;
      case "record":
        out = { kind: "record", fields: mapValues(v.fields, value) };
        break;
    }
    done.set(v, out);
    return out;
  };
  const effect = (e: Effect): Effect => ({
    ...e,
    args: mapValues(e.args, value),
    ...(e.agentAction?.args === undefined
      ? {}
      : { agentAction: { ...e.agentAction, args: mapValues(e.agentAction.args, value) } }),
    ...(e.sources === undefined ? {} : { sources: mapValues(e.sources, sources) }),
    ...(e.influencedBy === undefined ? {} : { influencedBy: sources(e.influencedBy) }),
  });
  const part = (p: ResultPart): ResultPart => {
    if (p.handles === undefined) return p;
    const ops = p.handles.flatMap((h) =>
      resolveOne({ source: "", untrusted: true, handle: h }).flatMap((s) => (s.op === undefined ? [] : [s.op])),
    );
    return { ...p, from: [...new Set([...p.from, ...ops])].sort(), untrusted: true };
  };
  return {
    ...facts,
    effects: facts.effects.map(effect),
    ...(facts.result === undefined ? {} : { result: { parts: facts.result.parts.map(part) } }),
  };
}

function exactSources(handle: string, known: ReadonlyMap<string, KnownHandle>): Provenance[] {
  const held = known.get(handle);
  if (held === undefined) {
    throw new CountersignError(
      "usage_error",
      "analysis",
      `the program takes up handle ${handle}, which this agent was not given or which has expired: pass only a handle from an earlier run's value, within a day`,
      {
        details: { reason: "unknown_handle", handle },
      },
    );
  }
  if (held.from.length === 0)
    return [
      { source: `result of an unknown op in request ${held.request}, held as ${handle}`, untrusted: true, handle },
    ];
  return held.from.map((op) => ({
    source: `result of ${op} in request ${held.request}, held as ${handle}`,
    untrusted: true,
    op,
    handle,
  }));
}

function mapValues<A, B>(record: Record<string, A>, f: (a: A) => B): Record<string, B> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v)]));
}

/** The handles a program takes up (fromHandle), as its facts name them, without repeats. */
export function handlesTakenUp(facts: Facts): string[] {
  const ids = new Set<string>();
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (k === "handle" && typeof x === "string") ids.add(x);
        else if (k === "handles" && Array.isArray(x)) {
          for (const h of x) if (typeof h === "string") ids.add(h);
        } else visit(x);
      }
    }
  };
  visit(facts.effects);
  visit(facts.result ?? null);
  return [...ids];
}
