import { readHostEntry, readUrlTarget, type HostPort } from "../model/index.js";
import { memoizeString } from "./string-memo.js";

export type { HostPort };

/** Where an http(s) URL goes (see model/host-port.ts), remembered per URL (frozen results). */
export const urlHostPort: (value: string) => Readonly<{ host: string; port: number }> | null = memoizeString((value) =>
  freeze(readUrlTarget(value)),
);

/** One `host_in` entry (see model/host-port.ts), remembered per entry (frozen results). */
export const parseHostEntry: (entry: string) => Readonly<HostPort> | null = memoizeString((entry) =>
  freeze(readHostEntry(entry)),
);

/** Host names compare exactly (no suffix match); an entry without a port allows every port. */
export function hostAllowed(entries: readonly string[], target: { host: string; port: number }): boolean {
  return entries.some((entry) => {
    const allowed = parseHostEntry(entry);
    return allowed !== null && allowed.host === target.host && (allowed.port === null || allowed.port === target.port);
  });
}

function freeze<T extends object>(value: T | null): Readonly<T> | null {
  return value === null ? null : Object.freeze(value);
}
