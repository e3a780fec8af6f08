import fc from "fast-check";
import { matchOp } from "../../../src/constraint/index.js";
import { DIRS, FLAVORS, GLOBS, HOSTS, OP_PATTERNS, TRUSTED } from "./alphabet.js";
import { Choices } from "./choices.js";
import { Program, type Feature, type Scope, type Var } from "./gen-context.js";
import { Statements } from "./gen-statements.js";

/** A random agent program in the supported subset, written from a list of choices (see Choices). */
export function generateProgram(choices: readonly number[], disabled: ReadonlySet<Feature> = new Set()): string {
  const p = new Program(new Choices(choices), disabled);
  const statements = new Statements(p);
  const guarantees = Array.from({ length: p.c.int(4) }, () => guarantee(p));
  const tops = Array.from({ length: p.c.int(3) }, (): Var => ({ name: p.fresh("T"), type: "strs", mutable: false }));
  const topLines = tops.map((v) => `const ${v.name}: string[] = [${subset(p, FLAVORS.email).map(json).join(", ")}];`);
  const main = statements.block({ vars: [...tops], loop: "none", async: true, depth: 0 }, "    ");
  const after = Array.from({ length: p.c.int(3) }, () => afterExport(p, statements, tops));
  p.use("countersign", "program");
  const imports = [...p.imports]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([module, names]) => `import { ${[...names].sort().join(", ")} } from "${module}";`);
  return [
    ...imports,
    "",
    ...p.helpers.flatMap((h) => [h, ""]),
    ...topLines,
    "export default program({",
    '  rationale: "generated",',
    `  guarantees: [${guarantees.join(", ")}],`,
    "  async main() {",
    main,
    "  },",
    "});",
    ...after,
    "",
  ].join("\n");
}

/** A top-level declaration after `export default`: the module runs it before main. */
function afterExport(p: Program, statements: Statements, tops: Var[]): string {
  const scope: Scope = { vars: tops, loop: "none", async: false, depth: 3 };
  const name = p.fresh("late");
  const helper = p.asyncHelpers.length > 0 ? p.c.item(p.asyncHelpers) : undefined;
  return p.c.weighted<string>([
    [2, tops.length > 0, () => `const ${name} = ${p.c.item(tops).name}.push(${statements.e.str(scope, "email")});`],
    [2, true, () => `const ${name} = ${statements.trustedCall(scope)};`],
    [
      1,
      helper !== undefined,
      () =>
        `const ${name} = ${helper!.name}(${helper!.params.map((t) => statements.e.of(t, scope, "email")).join(", ")});`,
    ],
  ]);
}

/** The choice lists fast-check draws and shrinks. */
export const programChoices = fc.array(fc.nat({ max: 9999 }), { maxLength: 800, size: "max" });

const json = (v: unknown): string => JSON.stringify(v);

function subset<T>(p: Program, items: readonly T[]): T[] {
  const out = items.filter(() => p.c.chance(50));
  return out.length > 0 ? out : [items[0]!];
}

/** A contract helper call or a constraint object literal over the same small alphabets. */
function guarantee(p: Program): string {
  const c = p.c;
  const helper = (connector: string, name: string): string => p.use(`trusted/${connector}/contracts`, name);
  return c.weighted<string>([
    [3, true, () => `${helper("email", "recipientsOnly")}(${json(subset(p, FLAVORS.email))})`],
    [2, true, () => `${helper("email", "atMostEmails")}(${c.int(4)})`],
    [1, true, () => `${helper("email", "uniqueRecipients")}()`],
    [2, true, () => `${helper("fs", "writesUnder")}(${json(c.item(DIRS))})`],
    [1, true, () => `${helper("fs", "noWrites")}()`],
    [2, true, () => `${helper("http", "onlyHosts")}(${json(subset(p, HOSTS))})`],
    [4, true, () => literalGuarantee(p)],
  ]);
}

/** A constraint object over an op pattern, naming only inputs that the ops it selects have. */
function literalGuarantee(p: Program): string {
  const c = p.c;
  const op = c.item(OP_PATTERNS);
  const inputs = [
    ...new Set(TRUSTED.filter((fn) => matchOp(op, fn.op)).flatMap((fn) => fn.inputs.map((input) => input.name))),
  ];
  const parts = [`op: ${json(op)}`];
  if (c.chance(70)) parts.push(`args: { ${c.item(inputs)}: ${valueConstraint(p, 0)} }`);
  if (c.chance(30)) parts.push(`count: { max: ${c.int(4)} }`);
  const distinct = ["to", "path", "url"].filter((input) => inputs.includes(input));
  if (distinct.length > 0 && c.chance(15)) parts.push(`distinct: ${json(c.item(distinct))}`);
  return `{ ${parts.join(", ")} }`;
}

function valueConstraint(p: Program, depth: number): string {
  const c = p.c;
  const anyValue = (): string => json(c.item([...FLAVORS.email, ...FLAVORS.text, ...FLAVORS.path, ...FLAVORS.url]));
  return c.weighted<string>([
    [3, true, () => `{ in: [${subset(p, FLAVORS.email).map(json).join(", ")}] }`],
    [1, true, () => `{ not_in: [${subset(p, FLAVORS.email).map(json).join(", ")}] }`],
    [2, true, () => `{ eq: ${anyValue()} }`],
    [2, true, () => `{ glob: ${json(c.item(GLOBS))} }`],
    [2, true, () => `{ under: ${json(c.item(DIRS))} }`],
    [2, true, () => `{ host_in: ${json(subset(p, HOSTS))} }`],
    [1, true, () => `{ max_length: ${c.int(12)} }`],
    [1, true, () => `{ min_length: ${c.int(4)} }`],
    [
      1,
      true,
      () =>
        `{ ${c.item(["prefix", "suffix"])}: ${json(c.item(["https://api.x.com/", "/home/user/Sandbox/", "a@", "@x.com", ".txt", "-"]))} }`,
    ],
    [1, true, () => `{ type: ${json(subset(p, ["string", "array", "null"]))} }`],
    [1, depth < 2, () => `{ elements: ${valueConstraint(p, depth + 1)} }`],
    [1, depth < 2, () => `{ not: ${valueConstraint(p, depth + 1)} }`],
    [1, depth < 2, () => `{ any: [${valueConstraint(p, depth + 1)}, ${valueConstraint(p, depth + 1)}] }`],
    [1, depth < 2, () => `{ all: [${valueConstraint(p, depth + 1)}] }`],
  ]);
}
