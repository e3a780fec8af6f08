// @ts-nocheck: AssemblyScript, compiled by asc, not by tsc
// A plugin that answers with what no connector should: text that is not JSON, JSON that is not an
// object, an object nested too deep, host memory without end, and log lines; `ok` answers
// properly, so that a test can see the plugin served again afterwards.
import { setOutput } from "../../../trusted/connectors/shared/kernel";

@external("extism:host/env", "alloc") declare function alloc(length: i64): i64;
@external("extism:host/env", "log_info") declare function log_info(offset: i64): void;

export function not_json(): i32 {
  setOutput("here is your listing: {");
  return 0;
}

export function not_object(): i32 {
  setOutput("[1,2,3]");
  return 0;
}

export function deep(): i32 {
  setOutput('{"a":'.repeat(1000) + "1" + "}".repeat(1000));
  return 0;
}

// Each block lives in the host's memory, not in the plugin's capped linear memory.
export function host_hog(): i32 {
  while (true) alloc(1 << 20);
  return 0;
}

// Output larger than the call's host memory budget (the test sets a small one).
export function huge(): i32 {
  setOutput('{"text":"' + "x".repeat(3 << 19) + '"}');
  return 0;
}

export function chatty(): i32 {
  const line = alloc(5);
  for (let i = 0; i < 1000; i++) log_info(line);
  setOutput('{"said":"little"}');
  return 0;
}

export function ok(): i32 {
  setOutput('{"ok":true}');
  return 0;
}

// Shaped like get_draft's answer, but `to` is one string: a program typed for a list must not get it.
export function impostor(): i32 {
  setOutput('{"id":"d1","to":"all@example.com","subject":"s","body":"b","message":{}}');
  return 0;
}

// get_draft's fields, one missing: the program's `body` would be undefined.
export function partial(): i32 {
  setOutput('{"id":"d1","to":["a@x.com"],"subject":"s","message":{}}');
  return 0;
}

// get_draft's fields and more the manifest does not declare, one of them a prototype key.
export function padded(): i32 {
  setOutput('{"id":"d1","to":["a@x.com"],"subject":"s","body":"b","message":{},"admin":true,"__proto__":{"polluted":true}}');
  return 0;
}
