/** `error`: why the new configuration was refused; `policy_sha256` is the policy in force after the reload. */
export type ReloadResult =
  | { ok: true; policy_sha256: string; manifests_sha256: string }
  | { ok: false; error: string; policy_sha256: string };

/** One line for the log. */
export function describeReload(result: ReloadResult): string {
  return result.ok
    ? `reloaded: policy ${result.policy_sha256}, manifests ${result.manifests_sha256}`
    : `reload refused, the previous policy stays in force: ${result.error}`;
}
