import { deepFreeze, parseJsonPath, type PathStep } from "../model/index.js";
import { memoizeString } from "./string-memo.js";

/** The steps of an `at` path, read once per path text (the schema has refused any other). */
export const pathSteps = memoizeString((path: string): readonly PathStep[] =>
  deepFreeze([...(parseJsonPath(path) ?? [])]),
);
