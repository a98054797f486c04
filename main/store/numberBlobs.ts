import { endianness } from "node:os";
import { StoreDataError } from "./StoreDataError.js";

// Token ids and probabilities are stored as little-endian Int32 / Float32 blobs: 4 bytes an entry
// instead of ~6-20 as JSON text, and readable by numpy (`np.frombuffer(blob, "<i4")`).

// Typed arrays use the host's byte order: a straight copy on little-endian hosts (all Node targets
// in practice), an explicit conversion otherwise.
const littleEndianHost = endianness() === "LE";

/** Int32 little-endian bytes of `values`, or null. */
export function encodeInt32(values: ArrayLike<number> | null | undefined): Buffer | null {
  if (!values) return null;
  if (littleEndianHost) return Buffer.from(Int32Array.from(values).buffer);
  const buffer = Buffer.allocUnsafe(values.length * 4);
  for (let i = 0; i < values.length; i++) buffer.writeInt32LE(values[i] as number, i * 4);
  return buffer;
}

/** Float32 little-endian bytes of `values`, or null. */
export function encodeFloat32(values: ArrayLike<number> | null | undefined): Buffer | null {
  if (!values) return null;
  if (littleEndianHost) return Buffer.from(Float32Array.from(values).buffer);
  const buffer = Buffer.allocUnsafe(values.length * 4);
  for (let i = 0; i < values.length; i++) buffer.writeFloatLE(values[i] as number, i * 4);
  return buffer;
}

export function decodeInt32(blob: Buffer | null, column: string): number[] | null {
  if (blob === null) return null;
  checkLength(blob, column);
  const values = new Array<number>(blob.length / 4);
  for (let i = 0; i < values.length; i++) values[i] = blob.readInt32LE(i * 4);
  return values;
}

export function decodeFloat32(blob: Buffer | null, column: string): number[] | null {
  if (blob === null) return null;
  checkLength(blob, column);
  const values = new Array<number>(blob.length / 4);
  for (let i = 0; i < values.length; i++) values[i] = blob.readFloatLE(i * 4);
  return values;
}

function checkLength(blob: Buffer, column: string): void {
  if (!Buffer.isBuffer(blob)) throw new StoreDataError(column, `expected a blob, found ${typeof blob}`);
  if (blob.length % 4 !== 0) throw new StoreDataError(column, `blob of ${blob.length} bytes is not a whole number of 4-byte entries`);
}

/** Float64 little-endian bytes of `values` (log-probs: kept exact), or null. */
export function encodeFloat64(values: ArrayLike<number> | null | undefined): Buffer | null {
  if (!values) return null;
  const buffer = Buffer.allocUnsafe(values.length * 8);
  for (let i = 0; i < values.length; i++) buffer.writeDoubleLE(values[i] as number, i * 8);
  return buffer;
}

export function decodeFloat64(blob: Buffer | null, column: string): number[] | null {
  if (blob === null) return null;
  if (!Buffer.isBuffer(blob)) throw new StoreDataError(column, `expected a blob, found ${typeof blob}`);
  if (blob.length % 8 !== 0) throw new StoreDataError(column, `blob of ${blob.length} bytes is not a whole number of 8-byte entries`);
  const values = new Array<number>(blob.length / 8);
  for (let i = 0; i < values.length; i++) values[i] = blob.readDoubleLE(i * 8);
  return values;
}
