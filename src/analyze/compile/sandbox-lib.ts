import { libDeclarations } from "../../environment/index.js";

/**
 * The globals an agent program may use, as a lib of our own (the compiler runs with `noLib`),
 * generated from the one environment that runners build their realm from. It is an allowlist:
 * what is not declared is a type error. It declares no `eval`, `Function` constructor, `Proxy`,
 * `Reflect`, `globalThis` or host objects, and no member returns `any`.
 */
export const sandboxLib = libDeclarations();
