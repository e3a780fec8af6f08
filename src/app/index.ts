// Use cases: one function each, over explicit inputs and an AppContext. The CLI commands and the
// authority's routes are thin adapters over them.
export type { AppContext, PreviewHost, ProgramInput } from "./context.js";
export { localContext, type LocalOptions } from "./local-context.js";
export { checkProgram } from "./check-program.js";
export { decideAndSign, type ProgramDecision, type ReceiptOrder } from "./decide-and-sign.js";
export { policyInForce, REMEMBERED_FILE, type PolicyInForce } from "./policy-in-force.js";
export { submitRequest, refuseIfRejected, type Submission, type Submitted } from "./submit-request.js";
export { readRequest } from "./read-request.js";
export { readHandle } from "./read-handle.js";
export { listRequests } from "./list-requests.js";
export { decideRequest, type Verdict } from "./decide-request.js";
export { withdrawRequest } from "./withdraw-request.js";
export { recordRunOutput } from "./record-run-output.js";
export { issueRequestReceipt } from "./issue-request-receipt.js";
export { redeemReceipt } from "./redeem-receipt.js";
export { startProgramRun } from "./start-program-run.js";
export { runPolicyTests, PolicyTestFile, type PolicyCaseResult, type PolicyTestOptions } from "./run-policy-tests.js";
export { initDataDir, FIRST_TOKEN, type InitResult } from "./init-data-dir.js";
export { makeLoginLink, useLoginLink, LOGIN_LINK_MS } from "./login-link.js";
export { reviewRequest, fileRoots, listGlance, type ReviewedRequest } from "./review-request.js";
export {
  requestGlance,
  decidedBy,
  rememberedRules,
  isOwnResult,
  type PageRisk,
  type RiskKind,
  type RequestGlance,
  type GlanceOptions,
  type DecidedBy,
} from "./request-glance.js";
export {
  requestPage,
  FACT_STATUS_LABELS,
  type RequestPage,
  type RequestPageInput,
  type FactStatus,
  type PageFact,
  type PageCall,
  type PagePreview,
  type PageRemember,
  type PageRuling,
  type PageSources,
  type PageAgentManifests,
  type PageAgentAction,
  type PageAgentStep,
} from "./request-page.js";
export { answerQuestion, type DecisionRules, type FactAnswer } from "./answer-question.js";
export { answerRequestQuestion } from "./answer-request-question.js";
export { visibleText } from "./visible-text.js";
export { callsWords } from "./plain-words.js";
export { previewRequest, MAX_PREVIEWS } from "./preview-request.js";
export { runAgentProgram, type RunInput, type RunOptions } from "./run-agent-program.js";
export { RunReport, RunOutcome, ValueDropped, type RunEvent } from "./run-report.js";
export { checkWords, trustedCallsWords } from "./run-words.js";
export { SubmitAnswer, DecisionAnswer, RequestView, type AuthorityClient } from "./authority-client.js";
export { manifestsFor } from "./manifests-for.js";
export { requestManifests } from "./request-manifests.js";
export { shownBinding, type ShownBinding } from "./approval-binding.js";
export { agentContext, authorityContext, AgentContext } from "./agent-context.js";
export {
  simulatePolicy,
  PolicySimulation,
  ReplayedRequest,
  RulingChange,
  type SimulationInput,
} from "./simulate-policy.js";
export { checkpointAuditChain } from "./checkpoint-audit-chain.js";
export { verifyAuditLog, newestAuditCheckpoint, type AuditLogCheck } from "./verify-audit-log.js";
