import type { ContractHelper } from "../../src/model/contract.js";

export const httpContracts: ContractHelper[] = [
  {
    name: "onlyHosts",
    doc: "Every HTTP request this program makes goes to one of these host names.",
    params: [{ name: "hosts", type: "string[]" }],
    build: (hosts: string[]) => ({ op: "http.*", args: { url: { host_in: [...hosts] } } }),
  },
];
