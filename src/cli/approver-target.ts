import { userInfo } from "node:os";
import { dataDir } from "../config/index.js";
import { CountersignError } from "../model/index.js";
import { localAuthorityUrl } from "../store/index.js";
import { usageError, type Io } from "./command.js";

/**
 * Which authority an approver command talks to (--url, $COUNTERSIGN_URL, else authority.json) and as whom (--as, else
 * the OS user).
 */
export function approverTarget(
  values: { url?: string; as?: string },
  io: Io,
): { url: string; dataDir: string; approver: string } {
  const data = dataDir(io.env);
  const url = values.url ?? (io.env.COUNTERSIGN_URL || undefined) ?? localAuthorityUrl(data);
  if (url === undefined)
    throw new CountersignError(
      "config_error",
      "cli",
      `no authority has served from ${data}: start \`countersign serve\` first, or give --url`,
    );
  const approver = values.as ?? userInfo().username;
  if (approver.trim() === "") throw usageError("--as needs a name");
  return { url: url.replace(/\/+$/, ""), dataDir: data, approver };
}
