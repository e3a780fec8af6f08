import type { ts } from "../compile/typescript.js";
import type { Diagnostic, Provenance } from "../../model/index.js";
import type { AnalysisBudget } from "../budget.js";
import type { ManifestSet } from "../../manifest/index.js";
import { diagnosticAt } from "../diagnostic.js";
import type { Scan } from "../compile/scan.js";
import { CallSites } from "./call-sites.js";
import { Counts } from "./counts.js";
import { Frames } from "./frames.js";
import { Heap } from "./heap.js";
import { Influence } from "./influence.js";
import { NumericKeys } from "./numeric-keys.js";
import { OptionalChains } from "./optional-chains.js";
import { Promises } from "./promises.js";
import { UnrollAllowance } from "./unroll-allowance.js";
import { Variables } from "./variables.js";

/**
 * The shared context of the abstract interpreter. Statements, expressions and calls are
 * interpreted by the functions in statements.ts, expressions.ts and calls.ts; this class holds
 * what they share: the program and its checker, the budget, the diagnostics, and one part per
 * concern of the interpretation (each in a module of its own).
 */
export class Interpreter {
  readonly diagnostics: Diagnostic[] = [];
  readonly frames = new Frames();
  readonly influence = new Influence();
  readonly sites = new CallSites(this.influence, this.frames);
  readonly counts = new Counts(this.sites);
  readonly heap: Heap;
  readonly vars: Variables;
  readonly promises = new Promises();
  readonly chains = new OptionalChains(this.influence);
  readonly unrolling = new UnrollAllowance();
  readonly numericKeys: NumericKeys;

  constructor(
    readonly checker: ts.TypeChecker,
    readonly set: ManifestSet,
    readonly file: ts.SourceFile,
    readonly scan: Scan,
    readonly libFile: string,
    readonly budget: AnalysisBudget,
    heapAssumed: Provenance[], // see Heap
    deferredKeys: Iterable<ts.Node>, // see NumericKeys
  ) {
    this.heap = new Heap(scan.heapOpaque, heapAssumed);
    this.vars = new Variables(scan, this.heap, this.counts);
    this.numericKeys = new NumericKeys(deferredKeys);
  }

  /** Spend one step of the analysis budget at `node` (every statement and expression evaluated). */
  step(node: ts.Node): void {
    this.budget.step(node);
  }

  isLibDeclaration(node: ts.Node): boolean {
    return node.getSourceFile().fileName === this.libFile;
  }

  unsupported(node: ts.Node, what: string): void {
    this.diagnostics.push(
      diagnosticAt(this.file, node, "unsupported", `${what} is not supported by the analysis`, what),
    );
  }
}
