import type { ListQuery } from "../model/index.js";
import type { RequestListPage } from "../store/index.js";
import type { AppContext } from "./context.js";

/** Requests newest first, a page at a time, optionally of one status (the approver's queue). */
export async function listRequests(ctx: AppContext, query: ListQuery): Promise<RequestListPage> {
  return (await ctx.store()).list(query);
}
