import { GLOBALS, INTRINSICS, TYPES, type Shape } from "./environment.js";

/**
 * The environment as a TypeScript lib (the analyzer compiles with `noLib` and this text): the
 * fixed types, one interface per shape with its signatures and declared members (members declared
 * in another interface, e.g. ReadonlyArray's, go there), then each global's declaration.
 */
export function libDeclarations(): string {
  const interfaces = new Map<string, string[]>();
  const add = (name: string, line?: string): void => {
    const lines = interfaces.get(name) ?? [];
    interfaces.set(name, lines);
    if (line !== undefined) lines.push(line);
  };
  const shapes: Shape[] = [
    ...GLOBALS.flatMap((g) => [g.statics, g.prototype].filter((s): s is Shape => s !== undefined)),
    ...INTRINSICS.filter((i) => i.interface !== undefined).map(
      (i): Shape => ({ interface: i.interface!, members: i.members }),
    ),
  ];
  for (const shape of shapes) {
    add(shape.interface);
    for (const signature of shape.signatures ?? []) add(shape.interface, signature);
    for (const m of shape.members) if (m.declaration !== undefined) add(m.in ?? shape.interface, m.declaration);
  }
  const blocks = [...interfaces].map(([name, lines]) =>
    lines.length === 0 ? `interface ${name} {}` : `interface ${name} {\n${lines.map((l) => `  ${l}`).join("\n")}\n}`,
  );
  const declarations = GLOBALS.map((g) => g.declaration).filter((d) => d !== "");
  return `${TYPES}\n${blocks.join("\n")}\n\n${declarations.join("\n")}\n`;
}

let typeNames: ReadonlySet<string> | undefined;

/** The names of the lib's interfaces and type aliases. */
export function libTypeNames(): ReadonlySet<string> {
  typeNames ??= new Set([...libDeclarations().matchAll(/^(?:interface|type) (\w+)/gm)].map((m) => m[1]!));
  return typeNames;
}
