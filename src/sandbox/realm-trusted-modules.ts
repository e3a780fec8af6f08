/** What the host put on the host global (see install-host.ts) that the trusted modules use. */
interface HostObject {
  call: (op: string, args: unknown) => Promise<unknown>;
  contract: (connector: string, name: string, args: unknown[]) => unknown;
}

/**
 * The exports of `trusted/<connector>` (see host-modules.ts, which gives the module its text and
 * export list): made inside the VM before the lockdown, from the host global it reads once. Each
 * action function (`ops`: its name and op) hands its op and its argument to the host's `call` and returns the promise.
 * Exports are frozen arrow functions: no prototype, no properties to change.
 */
export function connectorModule(
  hostGlobal: string,
  ops: readonly (readonly [name: string, op: string])[],
): Record<string, (args: unknown) => Promise<unknown>> {
  const host = (globalThis as unknown as Record<string, HostObject>)[hostGlobal] as HostObject;
  const freeze = Object.freeze;
  const invoke = host.call;
  // No prototype: a name is only ever an own member, whatever it is.
  const exports: Record<string, (args: unknown) => Promise<unknown>> = Object.create(null);
  for (const [name, op] of ops) exports[name] = freeze((args: unknown) => invoke(op, args));
  return exports;
}

/**
 * The exports of `trusted/<connector>/contracts`: each helper hands its arguments to the host's
 * `contract`, which builds the contract on the host from plain data.
 */
export function contractsModule(
  hostGlobal: string,
  connector: string,
  names: readonly string[],
): Record<string, (...args: unknown[]) => unknown> {
  const host = (globalThis as unknown as Record<string, HostObject>)[hostGlobal] as HostObject;
  const freeze = Object.freeze;
  const contract = host.contract;
  const exports: Record<string, (...args: unknown[]) => unknown> = Object.create(null);
  for (const name of names) exports[name] = freeze((...args: unknown[]) => contract(connector, name, args));
  return exports;
}
