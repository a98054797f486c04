import { GgufFormatError } from "./GgufFormatError.js";

/** Thrown when a read needs bytes past the loaded window but inside the file: load more and parse again. */
export class NeedMoreBytes extends Error {
  override name = "NeedMoreBytes";
  constructor(readonly needed: number) {
    super(`need the first ${needed} bytes of the file`);
  }
}

/**
 * Synchronous little-endian reads over the first bytes of a file (a multi-gigabyte model's header
 * is parsed without reading its tensor data). A read past the window throws NeedMoreBytes; a read
 * past the end of the file throws GgufFormatError naming what was being read.
 */
export class GgufByteReader {
  /** Absolute offset of the next byte to read. */
  position = 0;

  constructor(
    private readonly window: Buffer,
    private readonly path: string,
    readonly fileSize: number,
  ) {}

  get remaining(): number {
    return this.fileSize - this.position;
  }

  private take(bytes: number, what: string): number {
    const start = this.position;
    const end = start + bytes;
    if (end > this.fileSize) {
      throw new GgufFormatError(this.path, `truncated: ${what} needs ${bytes} bytes at offset ${start}, but the file ends at ${this.fileSize}`);
    }
    if (end > this.window.length) throw new NeedMoreBytes(end);
    this.position = end;
    return start;
  }

  bytes(count: number, what: string): Buffer {
    const start = this.take(count, what);
    return this.window.subarray(start, start + count);
  }

  skip(count: number, what: string): void {
    if (this.position + count > this.fileSize) this.take(count, what);
    this.position += count;
  }

  u8 = (what: string) => this.window.readUInt8(this.take(1, what));
  i8 = (what: string) => this.window.readInt8(this.take(1, what));
  u16 = (what: string) => this.window.readUInt16LE(this.take(2, what));
  i16 = (what: string) => this.window.readInt16LE(this.take(2, what));
  u32 = (what: string) => this.window.readUInt32LE(this.take(4, what));
  i32 = (what: string) => this.window.readInt32LE(this.take(4, what));
  f32 = (what: string) => this.window.readFloatLE(this.take(4, what));
  f64 = (what: string) => this.window.readDoubleLE(this.take(8, what));
  u64 = (what: string) => this.window.readBigUInt64LE(this.take(8, what));
  i64 = (what: string) => this.window.readBigInt64LE(this.take(8, what));

  /** A u64 count or size that must fit in the rest of the file (so a corrupt length fails fast). */
  length(what: string, bytesPerItem = 1): number {
    const at = this.position;
    const value = this.u64(what);
    if (value > BigInt(Math.floor(this.remaining / Math.max(bytesPerItem, 1)))) {
      throw new GgufFormatError(
        this.path,
        `truncated or corrupt: ${what} at offset ${at} is ${value}, more than the ${this.remaining} bytes left in the file can hold`,
      );
    }
    return Number(value);
  }

  string(what: string): string {
    const length = this.length(`length of ${what}`);
    return this.bytes(length, what).toString("utf8");
  }
}
