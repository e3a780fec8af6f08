// Property tests draw a new seed on every local run (fast-check prints it with a counterexample),
// and one fixed seed in CI (CI=true), so that a CI run can be reproduced exactly. FC_SEED replays a
// run; FC_PATH with it (and one test file) replays one counterexample.
import fc from "fast-check";

const seed = process.env.FC_SEED ?? (process.env.CI === "true" ? "20261123" : undefined);
if (seed !== undefined)
  fc.configureGlobal({
    seed: Number(seed),
    ...(process.env.FC_PATH === undefined ? {} : { path: process.env.FC_PATH }),
  });
