// File a bug through an action the agent submitted itself (agent-manifests/create_issue.toml):
//   countersign check examples/file-issue.ts --manifest examples/agent-manifests/create_issue.toml
import { program } from "countersign";
import { createIssue } from "trusted/agent";
import { onlyHosts } from "trusted/http/contracts";

export default program({
  rationale: "Report the broken build to the widgets repository.",
  guarantees: [onlyHosts(["api.example.com"]), { op: "http.post", count: { max: 1 } }],
  async main() {
    await createIssue({ repo: "acme/widgets", issue: JSON.stringify({ title: "Nightly build fails", body: "The nightly build has failed since Monday." }) });
  },
});
