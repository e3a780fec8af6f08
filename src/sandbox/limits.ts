import { CountersignError } from "../model/index.js";
import { MIN_MEMORY_BYTES } from "./quickjs.js";
import { DEFAULT_MEMORY_BYTES } from "./sandbox-thread.js";

/** Bounds on one program run. */
export interface SandboxLimits {
  memoryBytes: number; // the QuickJS instance's whole linear memory, at least 16 MiB
  cpuMs: number; // time spent running the program's code, host calls it waits for excluded
  wallMs: number; // the whole run, waiting for trusted calls included
  outputBytes: number; // console output, UTF-8 bytes across all lines
  maxCalls: number; // trusted calls, refused ones included
  valueBytes: number; // what main returns, as UTF-8 JSON: a larger value is dropped, not returned
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  memoryBytes: DEFAULT_MEMORY_BYTES,
  cpuMs: 10_000,
  wallMs: 60_000,
  outputBytes: 1 << 20,
  maxCalls: 10_000,
  valueBytes: 64 * 1024,
};

/**
 * QuickJS's own stack limit. The WebAssembly code's frames also use the host's native stack,
 * which overflows first past ~192 KiB of QuickJS stack; 128 KiB allows ~650 nested calls.
 */
export const STACK_BYTES = 128 * 1024;

/** The limits of a run, refused with config_error unless each is a positive integer and the memory holds QuickJS. */
export function checkLimits(limits: SandboxLimits): SandboxLimits {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new CountersignError("config_error", "sandbox", `sandbox limit ${name} must be a positive integer`, {
        details: { [name]: value },
      });
  }
  if (limits.memoryBytes < MIN_MEMORY_BYTES) {
    throw new CountersignError(
      "config_error",
      "sandbox",
      `sandbox limit memoryBytes must be at least ${MIN_MEMORY_BYTES} (16 MiB)`,
      { details: { memoryBytes: limits.memoryBytes } },
    );
  }
  return limits;
}
