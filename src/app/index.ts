// Use cases: one function each, over explicit inputs and an AppContext. The CLI calls them
// today; the authority's routes, the runner and the MCP server are to be thin adapters over them.
export type { AppContext } from "./context.js";
export { localContext, type LocalOptions } from "./local-context.js";
export { checkProgram, type ProgramInput } from "./check-program.js";
export { submitRequest } from "./submit-request.js";
export { decideRequest } from "./decide-request.js";
export { issueRequestReceipt } from "./issue-request-receipt.js";
export { startProgramRun } from "./start-run.js";
export { runPolicyTests, PolicyTestFile, type PolicyCaseResult, type PolicyTestOptions } from "./run-policy-tests.js";
