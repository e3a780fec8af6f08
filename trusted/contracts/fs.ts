import type { ContractHelper } from "../../src/model/contract.js";

export const fsContracts: ContractHelper[] = [
  {
    name: "writesUnder",
    doc: "Every file this program writes lies under `dir` (an absolute path; `..` is resolved first).",
    params: [{ name: "dir", type: "string" }],
    build: (dir: string) => ({ op: "fs.write_file", args: { path: { under: dir } } }),
  },
  {
    name: "noWrites",
    doc: "This program writes no file.",
    params: [],
    build: () => ({ op: "fs.write_file", count: { max: 0 } }),
  },
];
