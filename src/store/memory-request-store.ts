import type { ApprovalRequest, RequestStore } from "../model/request.js";

/** Requests of one process (a local run, tests); copies in and out, so callers never share state. */
export class MemoryRequestStore implements RequestStore {
  readonly #requests = new Map<string, ApprovalRequest>();

  async save(request: ApprovalRequest): Promise<void> {
    this.#requests.set(request.id, structuredClone(request));
  }

  async get(id: string): Promise<ApprovalRequest | undefined> {
    const found = this.#requests.get(id);
    return found === undefined ? undefined : structuredClone(found);
  }
}
