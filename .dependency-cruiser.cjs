// The layering of docs/architecture.md section 3, checked by `npm run layers` (part of `npm test`). It reads
// the compiled modules in dist/ (dependency-cruiser does not parse TypeScript 7), so it sees the
// imports that exist at run time; `import type` lines are erased by the compiler and not checked.
// Each folder may import only the folders below it; core stages (model, constraint, manifest,
// analyze, policy, receipt verification) take text, bytes and values and do no I/O of their own.
//
//   cli, mcp, authority          the edges that talk to people and agents
//   app                          use cases over explicit inputs and stores
//   config, store, sandbox       disk, databases, the QuickJS runner
//   connector                    the Extism host (network and files, behind receipts)
//   analyze, policy, receipt     core stages (receipt: issue and verify; keys come from a KeyStore)
//   given                        core: what a run gives its agent (quarantined parts held back) and
//                                what it was given, read against its later programs
//   manifest, constraint         core: manifests, the one constraint language
//   environment                  the globals and built-ins agent programs may use, as data
//   model                        schemas, types and small pure helpers everyone shares

/** A rule that `from` folder may import only `allowed` folders of src/ (its own included). */
function only(folder, allowed, comment) {
  return {
    name: `${folder}-imports-only-${allowed.join("-") || "itself"}`,
    comment,
    severity: "error",
    from: { path: `^dist/src/${folder}/` },
    to: {
      path: "^dist/(src|trusted)/",
      pathNot: [
        `^dist/src/(${[folder, ...allowed].join("|")})/`,
        ...(allowed.includes("trusted") ? ["^dist/trusted/contracts/"] : []),
      ],
    },
  };
}

// I/O a core stage must not do; node builtins that touch the disk, the network or processes.
const IO_MODULES = "^(node:)?(fs|fs/promises|child_process|net|http|https|http2|dgram|dns|worker_threads|cluster)$";

// Core files that still do I/O today, each to move to an edge (config, store). The list only shrinks.
const KNOWN_IO_IN_CORE = [
  "^dist/src/model/paths\\.js$", // packageRoot (reads package.json), makePrivateDir
  "^dist/src/analyze/compile/code-cache\\.js$", // the V8 code cache of the compiler bundle
];

// Modules that may be imported directly across folders: their folder's index is heavy to load.
const LIGHT_ENTRIES = [
  "^dist/src/analyze/compile/code-cache\\.js$", // installed before the compiler loads, so that it loads from the cache
  "^dist/src/analyze/limits\\.js$", // the budget's defaults, for help text
  // What every command needs before it loads (the data directory, the version) and what `check`
  // needs to find its authority: the config and store indexes load the database drivers and jose.
  "^dist/src/config/data-dir\\.js$",
  "^dist/src/config/package-version\\.js$",
  "^dist/src/store/authority-url\\.js$",
  "^dist/src/store/data-dir-files\\.js$",
  // The model's zod-free modules on that path: its index loads zod and every schema, most of a
  // `check` that only sends a file and prints the answer.
  "^dist/src/model/errors-plain\\.js$",
  "^dist/src/model/paths\\.js$",
  "^dist/src/model/program-bytes\\.js$",
  // A run's report in words, printed by `run` before it loads the app.
  "^dist/src/app/run-words\\.js$",
  // Every command's terminal output of program text goes through it.
  "^dist/src/model/visible-text\\.js$",
  // How every thread is started; the sandbox's thread starts before the rest loads.
  "^dist/src/model/thread-module\\.js$",
];

module.exports = {
  forbidden: [
    only("model", [], "model is the bottom layer: schemas, types and pure helpers every stage shares"),
    only(
      "constraint",
      ["model"],
      "the constraint language knows nothing of the analysis, policies or receipts (no constraint -> analyze)",
    ),
    only(
      "environment",
      ["model"],
      "the environment of agent programs is data: the analyzer and the sandbox read it, it reads nothing",
    ),
    only(
      "manifest",
      ["model", "constraint", "trusted"],
      "manifests are checked from their texts; the contract helpers come from trusted/contracts",
    ),
    only(
      "analyze",
      ["model", "constraint", "manifest", "environment", "trusted"],
      "the analysis proves facts and does not decide (no analyze -> policy, no analyze -> store)",
    ),
    only(
      "policy",
      ["model", "constraint", "manifest"],
      "the policy decides over facts (no policy -> analyze, no policy -> store)",
    ),
    only(
      "given",
      ["model", "constraint"],
      "what agents were given is matched against facts as data (no given -> store): the use cases hand both in",
    ),
    only(
      "receipt",
      ["model", "constraint"],
      "receipts are issued and verified with keys handed in by a KeyStore (no receipt -> authority, no receipt -> store)",
    ),
    only(
      "connector",
      ["model", "constraint", "manifest", "receipt", "store"],
      "the connector host enforces receipts; it never reads the policy (no connector -> policy)",
    ),
    only("given", ["model", "constraint"], "what the agent is given of a run is decided from values and facts, purely"),
    only(
      "store",
      ["model", "constraint", "receipt"],
      "stores persist what the stages hand them, behind the stages' interfaces",
    ),
    only(
      "sandbox",
      ["model", "manifest", "environment", "analyze", "trusted"],
      "the QuickJS runner takes the compiler from the analyzer and the contract helpers; it never decides or reaches a store",
    ),
    only(
      "config",
      ["model", "constraint", "manifest", "policy", "receipt", "connector", "store"],
      "config reads the user's files and hands texts to the stages",
    ),
    only(
      "app",
      [
        "model",
        "constraint",
        "manifest",
        "analyze",
        "policy",
        "given",
        "receipt",
        "connector",
        "config",
        "store",
        "sandbox",
      ],
      "use cases never reach into an adapter",
    ),
    only(
      "authority",
      ["model", "constraint", "manifest", "analyze", "policy", "receipt", "connector", "config", "store", "app"],
      "the authority's routes are thin adapters over the use cases",
    ),
    only(
      "mcp",
      ["model", "manifest", "config", "app"],
      "the MCP tools are thin adapters over the use cases; the command that starts the server hands in the authority client",
    ),
    {
      name: "only-serve-starts-the-authority",
      comment: "nothing imports the authority but the command that runs it",
      severity: "error",
      from: { path: "^dist/src/", pathNot: ["^dist/src/authority/", "^dist/src/cli/serve\\.js$"] },
      to: { path: "^dist/src/authority/" },
    },
    {
      name: "only-trusted-contracts",
      comment: "trusted/contracts are data the analyzer and the API generator read; they import only the model",
      severity: "error",
      from: { path: "^dist/trusted/contracts/" },
      to: { path: "^dist/src/", pathNot: "^dist/src/model/" },
    },
    {
      name: "core-does-no-io",
      comment:
        "core stages take text, bytes and values: reading files or the network belongs to config, store or connector",
      severity: "error",
      from: {
        path: "^dist/src/(model|environment|constraint|manifest|analyze|policy|given|receipt)/",
        pathNot: KNOWN_IO_IN_CORE,
      },
      to: { dependencyTypes: ["core"], path: IO_MODULES },
    },
    {
      // Across folders the layer rules already forbid cycles; the analyzer's interpreter is a
      // recursive descent whose modules (expressions, calls, statements, loops) call each other,
      // so its own folder, and only that one, is exempt.
      name: "no-circular",
      comment: "modules of a folder do not import each other in a cycle",
      severity: "error",
      from: { pathNot: "^dist/src/analyze/interpret/" },
      to: { circular: true },
    },
    {
      // A folder's public surface is its index.ts. Two kinds of imports may name a module instead:
      // dynamic imports (a command loads what it needs lazily), and the light entries below, whose
      // folder's index would load heavy dependencies (the analyzer's index loads the compiler).
      name: "cross-folder-through-index",
      comment: "a folder's public surface is its index.ts: import another folder only through it",
      severity: "error",
      from: { path: "^dist/src/([^/]+)/" },
      to: {
        path: "^dist/src/[^/]+/",
        pathNot: ["^dist/src/$1/", "^dist/src/[^/]+/index\\.js$", ...LIGHT_ENTRIES],
        dependencyTypesNot: ["dynamic-import"],
      },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)node_modules/|\\.d\\.ts$|\\.map$" },
  },
};
