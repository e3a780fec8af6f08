// The Extism kernel, imported by hand: there is no AssemblyScript PDK. Every pointer and length
// is an i64 offset into host-managed memory, not into this module's linear memory. The kernel
// moves at most 8 bytes per host call, so bytes cross it once each, in 8-byte words: a connector
// works on them where they land in linear memory rather than on text decoded from them.

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

function inputWord(at: i64): u64 { return input_load_u64(at); }
function inputByte(at: i64): u8 { return input_load_u8(at); }
function blockWord(at: i64): u64 { return load_u64(at); }
function blockByte(at: i64): u8 { return load_u8(at); }

/**
 * `n` bytes from `from` in host memory, 8 at a time: the last word overlaps the one before it
 * rather than taking the rest byte by byte (each is a host call).
 */
function copyIn(from: i64, n: i32, word: (at: i64) => u64, byte: (at: i64) => u8): Uint8Array {
  const bytes = new Uint8Array(n);
  const base = bytes.dataStart;
  if (n < 8) {
    for (let i = 0; i < n; i++) store<u8>(base + i, byte(from + i));
    return bytes;
  }
  for (let i = 0; i < n; i += 8) {
    const at = min(i, n - 8);
    store<u64>(base + at, word(from + at));
  }
  return bytes;
}

/** The call's input bytes. */
export function readInput(): Uint8Array {
  return copyIn(0, <i32>input_length(), inputWord, inputByte);
}

/** A kernel block's bytes (e.g. a host function's answer). */
export function loadBlock(offset: i64): Uint8Array {
  return copyIn(offset, <i32>length(offset), blockWord, blockByte);
}

/** Copy `n` bytes at `ptr` into a fresh kernel block and return its offset (8 at a time, as copyIn). */
export function storeBlock(ptr: usize, n: i32): i64 {
  const offset = alloc(n);
  if (n < 8) {
    for (let i = 0; i < n; i++) store_u8(offset + i, load<u8>(ptr + i));
    return offset;
  }
  for (let i = 0; i < n; i += 8) {
    const at = min(i, n - 8);
    store_u64(offset + at, load<u64>(ptr + at));
  }
  return offset;
}

/** The call's output: `n` bytes at `ptr`. */
export function setOutputBytes(ptr: usize, n: i32): void {
  output_set(storeBlock(ptr, n), n);
}

/** The call's error: `n` bytes at `ptr`. */
export function setErrorBytes(ptr: usize, n: i32): void {
  error_set(storeBlock(ptr, n));
}

/** The call's output as text. */
export function setOutput(text: string): void {
  const bytes = String.UTF8.encode(text);
  setOutputBytes(changetype<usize>(bytes), bytes.byteLength);
}
