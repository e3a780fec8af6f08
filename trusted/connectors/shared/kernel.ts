// The Extism kernel, imported by hand: there is no AssemblyScript PDK. Every pointer and length
// is an i64 offset into host-managed memory, not into this module's linear memory.

@external("extism:host/env", "alloc") declare function alloc(length: i64): i64;
@external("extism:host/env", "length") declare function length(offset: i64): i64;
@external("extism:host/env", "load_u8") declare function load_u8(offset: i64): u8;
@external("extism:host/env", "load_u64") declare function load_u64(offset: i64): u64;
@external("extism:host/env", "store_u8") declare function store_u8(offset: i64, value: u8): void;
@external("extism:host/env", "store_u64") declare function store_u64(offset: i64, value: u64): void;
@external("extism:host/env", "input_length") declare function input_length(): i64;
@external("extism:host/env", "input_load_u8") declare function input_load_u8(offset: i64): u8;
@external("extism:host/env", "input_load_u64") declare function input_load_u64(offset: i64): u64;
@external("extism:host/env", "output_set") declare function output_set(offset: i64, length: i64): void;
@external("extism:host/env", "error_set") declare function error_set(offset: i64): void;

/** The call's input as a UTF-8 string. */
export function readInput(): string {
  const n = <i32>input_length();
  const buf = new ArrayBuffer(n);
  const base = changetype<usize>(buf);
  let i = 0;
  for (; i + 8 <= n; i += 8) store<u64>(base + i, input_load_u64(i));
  for (; i < n; i++) store<u8>(base + i, input_load_u8(i));
  return String.UTF8.decode(buf);
}

/** Copy a string into a fresh kernel block and return its offset. */
export function storeString(text: string): i64 {
  const buf = String.UTF8.encode(text);
  const n = buf.byteLength;
  const base = changetype<usize>(buf);
  const offset = alloc(n);
  let i = 0;
  for (; i + 8 <= n; i += 8) store_u64(offset + i, load<u64>(base + i));
  for (; i < n; i++) store_u8(offset + i, load<u8>(base + i));
  return offset;
}

/** Read a kernel block (e.g. a host function's answer) as a UTF-8 string. */
export function loadString(offset: i64): string {
  const n = <i32>length(offset);
  const buf = new ArrayBuffer(n);
  const base = changetype<usize>(buf);
  let i = 0;
  for (; i + 8 <= n; i += 8) store<u64>(base + i, load_u64(offset + i));
  for (; i < n; i++) store<u8>(base + i, load_u8(offset + i));
  return String.UTF8.decode(buf);
}

export function setOutput(text: string): void {
  const offset = storeString(text);
  output_set(offset, length(offset));
}

export function setError(text: string): void {
  error_set(storeString(text));
}
