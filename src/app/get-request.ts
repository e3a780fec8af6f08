import { z } from "zod";
import { RequestStatus } from "../model/index.js";
import { PolicyView, type AuthorityClient } from "./authority-client.js";

/** An earlier request as its submitter may see it: no receipt, no preview, nothing only the approver sees. */
export const RequestView = z.object({
  id: z.string(),
  status: RequestStatus,
  decision: z.object({ kind: z.string(), reason: z.string().nullable(), feedback: z.string().nullable() }).nullable(),
  policy: PolicyView,
});
export type RequestView = z.infer<typeof RequestView>;

/** The status of an earlier request, read at the authority without waiting; the schema drops the receipt. */
export async function getRequest(client: AuthorityClient, id: string, signal?: AbortSignal): Promise<RequestView> {
  return RequestView.parse(await client.decision(id, 0, signal));
}
