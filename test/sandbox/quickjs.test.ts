// Instances and their linear memories: a memory goes back to a later run only zeroed, and one
// that grew is never kept.
import { describe, expect, it } from "vitest";
import { newQuickJS } from "../../src/sandbox/quickjs.js";

const MIB = 1024 * 1024;

describe("a run's QuickJS instance", () => {
  it("gets a memory another run used only after every byte of it is zeroed", async () => {
    const first = await newQuickJS(40 * MIB); // a size no other test uses, so the spare list is this test's
    const memory = first.module.getWasmMemory();
    const bytes = new Uint8Array(memory.buffer);
    bytes.fill(0xab, bytes.length - 4096); // where a fresh instance writes nothing
    // Lone bytes at either edge of a 64 KiB page and inside one: only dirty pages are filled.
    const lone = [bytes.length - 5 * 65536 - 1, bytes.length - 5 * 65536, bytes.length - 3 * 65536 + 777];
    for (const at of lone) bytes[at] = 1;
    first.release();
    first.release(); // once only

    const second = await newQuickJS(40 * MIB);
    expect(second.module.getWasmMemory()).toBe(memory); // the same memory, used again
    expect(new Uint8Array(memory.buffer).subarray(bytes.length - 4096).every((b) => b === 0)).toBe(true);
    expect(lone.map((at) => new Uint8Array(memory.buffer)[at])).toEqual([0, 0, 0]);
    const third = await newQuickJS(40 * MIB);
    expect(third.module.getWasmMemory()).not.toBe(memory); // the spare was taken: a new one
    second.release();
    third.release();
  });

  it("never hands out a memory that grew, and keeps each size apart", async () => {
    const grown = await newQuickJS(48 * MIB);
    const vm = grown.module.newContext();
    vm.unwrapResult(vm.evalCode(`globalThis.keep = "x".repeat(24 * 1024 * 1024).length`)).dispose();
    vm.dispose();
    const memory = grown.module.getWasmMemory();
    expect(memory.buffer.byteLength).toBeGreaterThan(16 * MIB);
    grown.release();
    expect((await newQuickJS(48 * MIB)).module.getWasmMemory()).not.toBe(memory);

    const small = await newQuickJS(44 * MIB);
    const smallMemory = small.module.getWasmMemory();
    small.release();
    expect((await newQuickJS(52 * MIB)).module.getWasmMemory()).not.toBe(smallMemory);
  });
});
