/**
 * What the host put on the host global (see install-host.ts and realm-bridge.ts) that the `countersign` module uses.
 */
interface HostObject {
  call: (op: string, args: unknown) => Promise<unknown>;
  register: (runner: (value: unknown) => unknown) => void;
}

/** What a program hands `program(...)`: checked here, since the program may hand anything. */
interface ProgramSpec {
  main?: unknown;
  rationale?: unknown;
  guarantees?: unknown;
}

/**
 * The exports of the `countersign` module (see host-modules.ts, which gives it its text): made
 * inside the VM before the lockdown, from the host global it reads once. `program` takes the
 * program's main once; the runner it registers calls main when handed the program's default
 * export, which must be what `program` returned. Exports are frozen arrow functions: no
 * prototype, no properties to change.
 */
export function programModule(
  hostGlobal: string,
  fromHandleOp: string,
): { program: (spec: ProgramSpec) => unknown; fromHandle: (id: unknown) => Promise<unknown> } {
  const host = (globalThis as unknown as Record<string, HostObject>)[hostGlobal] as HostObject;
  const freeze = Object.freeze;
  const TypeError_ = TypeError;
  let exported: unknown;
  let main: (() => unknown) | undefined;
  const program = freeze((spec: ProgramSpec) => {
    if (main !== undefined) throw new TypeError_("program(...) may be called only once");
    const run = spec.main;
    if (typeof run !== "function") throw new TypeError_("program(...) needs an async main function");
    main = run as () => unknown;
    exported = freeze({ rationale: spec.rationale, guarantees: spec.guarantees });
    return exported;
  });
  const invoke = host.call;
  const fromHandle = freeze((id: unknown) => invoke(fromHandleOp, { id }));
  host.register(
    freeze((value: unknown) => {
      if (main === undefined || value !== exported)
        throw new TypeError_("the default export must be the value of program(...)");
      return main();
    }),
  );
  return { program, fromHandle };
}
