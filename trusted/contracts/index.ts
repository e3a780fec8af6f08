import type { ContractHelper } from "../../src/model/contract.js";
import { emailContracts } from "./email.js";
import { fsContracts } from "./fs.js";
import { httpContracts } from "./http.js";

/** Contract helpers by connector: the module `trusted/<connector>/contracts` exports these. */
export const contractsByConnector: Readonly<Record<string, readonly ContractHelper[]>> = {
  email: emailContracts,
  fs: fsContracts,
  http: httpContracts,
};
