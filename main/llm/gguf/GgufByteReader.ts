import type { FileHandle } from "node:fs/promises";
import { GgufFormatError } from "./GgufFormatError.js";

const chunkSize = 1 << 20;

/**
 * Sequential little-endian reads from a file through a 1 MiB window, so that a multi-gigabyte
 * model's header is parsed without reading its tensor data. Every read names what it was reading
 * when the file ends too early.
 */
export class GgufByteReader {
  private buffer = Buffer.alloc(0);
  private bufferStart = 0;
  /** Absolute offset of the next byte to read. */
  position = 0;

  constructor(
    private readonly file: FileHandle,
    private readonly path: string,
    readonly fileSize: number,
  ) {}

  get remaining(): number {
    return this.fileSize - this.position;
  }

  private async ensure(bytes: number, what: string): Promise<Buffer> {
    if (this.position + bytes > this.fileSize) {
      throw new GgufFormatError(
        this.path,
        `truncated: ${what} needs ${bytes} bytes at offset ${this.position}, but the file ends at ${this.fileSize}`,
      );
    }
    const start = this.position - this.bufferStart;
    if (start >= 0 && start + bytes <= this.buffer.length) return this.buffer;
    const length = Math.min(Math.max(bytes, chunkSize), this.fileSize - this.position);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await this.file.read(buffer, 0, length, this.position);
    if (bytesRead < bytes) {
      throw new GgufFormatError(this.path, `truncated: could not read ${what} at offset ${this.position}`);
    }
    this.buffer = buffer.subarray(0, bytesRead);
    this.bufferStart = this.position;
    return this.buffer;
  }

  async bytes(count: number, what: string): Promise<Buffer> {
    const buffer = await this.ensure(count, what);
    const start = this.position - this.bufferStart;
    this.position += count;
    return buffer.subarray(start, start + count);
  }

  async skip(count: number, what: string): Promise<void> {
    if (this.position + count > this.fileSize) await this.ensure(count, what);
    this.position += count;
  }

  async u8(what: string): Promise<number> {
    return (await this.bytes(1, what)).readUInt8(0);
  }
  async i8(what: string): Promise<number> {
    return (await this.bytes(1, what)).readInt8(0);
  }
  async u16(what: string): Promise<number> {
    return (await this.bytes(2, what)).readUInt16LE(0);
  }
  async i16(what: string): Promise<number> {
    return (await this.bytes(2, what)).readInt16LE(0);
  }
  async u32(what: string): Promise<number> {
    return (await this.bytes(4, what)).readUInt32LE(0);
  }
  async i32(what: string): Promise<number> {
    return (await this.bytes(4, what)).readInt32LE(0);
  }
  async f32(what: string): Promise<number> {
    return (await this.bytes(4, what)).readFloatLE(0);
  }
  async f64(what: string): Promise<number> {
    return (await this.bytes(8, what)).readDoubleLE(0);
  }
  async u64(what: string): Promise<bigint> {
    return (await this.bytes(8, what)).readBigUInt64LE(0);
  }
  async i64(what: string): Promise<bigint> {
    return (await this.bytes(8, what)).readBigInt64LE(0);
  }

  /** A u64 count or size that must fit in the rest of the file (so a corrupt length fails fast). */
  async length(what: string, bytesPerItem = 1): Promise<number> {
    const at = this.position;
    const value = await this.u64(what);
    if (value > BigInt(Math.floor(this.remaining / Math.max(bytesPerItem, 1)))) {
      throw new GgufFormatError(
        this.path,
        `truncated or corrupt: ${what} at offset ${at} is ${value}, more than the ${this.remaining} bytes left in the file can hold`,
      );
    }
    return Number(value);
  }

  async string(what: string): Promise<string> {
    const length = await this.length(`length of ${what}`);
    return (await this.bytes(length, what)).toString("utf8");
  }
}
