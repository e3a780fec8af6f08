// A growing byte buffer in linear memory: what a connector writes out (JSON for the host) is
// assembled here as UTF-8 and crosses the kernel once. It is a raw block of the stub runtime,
// which grows the last block in place: a request or output written in one go takes the memory
// it needs and no more (within the plugin's capped memory, a file's content fits twice).

export class ByteWriter {
  private ptr: usize = __alloc(256);
  private capacity: i32 = 256;
  length: i32 = 0;

  /** Room for `n` more bytes; returns where they go. */
  reserve(n: i32): usize {
    const need = this.length + n;
    if (need > this.capacity) {
      this.capacity = max(need, this.capacity + (this.capacity >> 1));
      this.ptr = __realloc(this.ptr, this.capacity);
    }
    return this.ptr + this.length;
  }

  byte(c: u8): void {
    store<u8>(this.reserve(1), c);
    this.length++;
  }

  copy(ptr: usize, n: i32): void {
    memory.copy(this.reserve(n), ptr, n);
    this.length += n;
  }

  /** `len` UTF-16 code units of `s` from `from`, as UTF-8 (lone surrogates as WTF-8, as String.UTF8 does). */
  utf8(s: string, from: i32, len: i32): void {
    const at = this.reserve(len * 3); // one code unit takes at most 3 bytes, a pair 4
    this.length += <i32>String.UTF8.encodeUnsafe(changetype<usize>(s) + (<usize>from << 1), len, at);
  }

  /** One UTF-16 code unit as UTF-8 (a surrogate as WTF-8). */
  codeUnit(u: i32): void {
    if (u < 0x80) return this.byte(<u8>u);
    if (u < 0x800) {
      this.byte(<u8>(0xc0 | (u >> 6)));
    } else {
      this.byte(<u8>(0xe0 | (u >> 12)));
      this.byte(<u8>(0x80 | ((u >> 6) & 63)));
    }
    this.byte(<u8>(0x80 | (u & 63)));
  }

  text(s: string): void {
    this.utf8(s, 0, s.length);
  }

  dataStart(): usize {
    return this.ptr;
  }
}
