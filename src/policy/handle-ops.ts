import type { Policy } from "./schema.js";

/** The op patterns whose untrusted results `main` hands back as handles instead of text. */
export function handleOps(policy: Pick<Policy, "handles">): string[] {
  return policy.handles;
}
