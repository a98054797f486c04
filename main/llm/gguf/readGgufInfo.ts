import { open } from "node:fs/promises";
import { GgufByteReader, NeedMoreBytes } from "./GgufByteReader.js";
import { GgufFormatError } from "./GgufFormatError.js";
import type { GgufArray, GgufInfo, GgufTensorInfo, GgufValue } from "./GgufInfo.js";
import { ggmlTensorType } from "./ggmlTensorType.js";
import { GgufValueType, ggufFixedValueSize, ggufValueTypeName, type GgufValueTypeId } from "./ggufValueType.js";

export interface ReadGgufInfoOptions {
  /** Arrays longer than this keep only their type and length (tokenizer vocabularies are large). Defaults to 1024. */
  maxArrayItems?: number;
}

const magic = "GGUF";
const maxDims = 4;
const defaultAlignment = 32;

/**
 * Reads a GGUF file's header, metadata and tensor table in plain JavaScript, and checks that every
 * tensor's data lies inside the file. Throws GgufFormatError naming the file and the problem, so
 * a malformed or truncated file is refused before llama.cpp (which may abort the process) sees it.
 */
export async function readGgufInfo(path: string, options: ReadGgufInfoOptions = {}): Promise<GgufInfo> {
  const maxArrayItems = options.maxArrayItems ?? 1024;
  let file;
  try {
    file = await open(path, "r");
  } catch (error) {
    throw new GgufFormatError(path, `cannot open the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    const { size } = await file.stat();
    // Parse from a window of the file's first bytes, growing it until the header fits: the header
    // is parsed synchronously (fast even for 250k-token vocabularies) and tensor data is never read.
    let windowSize = Math.min(size, 1 << 20);
    for (;;) {
      const window = Buffer.alloc(windowSize);
      const { bytesRead } = await file.read(window, 0, windowSize, 0);
      try {
        return parse(new GgufByteReader(window.subarray(0, bytesRead), path, size), path, maxArrayItems);
      } catch (error) {
        if (!(error instanceof NeedMoreBytes) || bytesRead < windowSize) throw error;
        windowSize = Math.min(size, Math.max(error.needed, windowSize * 4));
      }
    }
  } finally {
    await file.close();
  }
}

function parse(reader: GgufByteReader, path: string, maxArrayItems: number): GgufInfo {
  if (reader.fileSize < 4) throw new GgufFormatError(path, `not a GGUF file: only ${reader.fileSize} bytes long`);
  const found = reader.bytes(4, "magic").toString("latin1");
  if (found !== magic) {
    throw new GgufFormatError(path, `not a GGUF file: magic bytes are ${JSON.stringify(found)}, expected "GGUF"`);
  }
  const version = reader.u32("version");
  if (version !== 2 && version !== 3) {
    const hint = version > 0xffff ? " (a big-endian file?)" : "";
    throw new GgufFormatError(path, `unsupported GGUF version ${version}${hint}, expected 2 or 3`);
  }
  // The smallest tensor-info entry is 8 (name length) + 4 (dims) + 4 (type) + 8 (offset) bytes.
  const tensorCount = reader.length("tensor count", 24);
  // The smallest metadata entry is 8 (key length) + 4 (type) + 1 byte.
  const kvCount = reader.length("metadata count", 13);

  const metadata: Record<string, GgufValue> = {};
  for (let i = 0; i < kvCount; i++) {
    const key = reader.string(`metadata key #${i}`);
    const type = reader.u32(`type of metadata "${key}"`);
    metadata[key] = readValue(reader, path, type, key, maxArrayItems);
  }

  const alignmentValue = metadata["general.alignment"];
  const alignment = alignmentValue === undefined ? defaultAlignment : alignmentValue;
  if (typeof alignment !== "number" || alignment <= 0 || alignment % 8 !== 0) {
    throw new GgufFormatError(path, `general.alignment is ${String(alignment)}, expected a positive multiple of 8`);
  }

  const rawTensors: Array<Omit<GgufTensorInfo, "offset"> & { relativeOffset: number }> = [];
  for (let i = 0; i < tensorCount; i++) {
    rawTensors.push(readTensorInfo(reader, path, i));
  }
  const dataOffset = Math.ceil(reader.position / alignment) * alignment;
  const tensors = rawTensors.map(({ relativeOffset, ...tensor }) => {
    if (relativeOffset % alignment !== 0) {
      throw new GgufFormatError(path, `tensor "${tensor.name}" has offset ${relativeOffset}, not a multiple of the alignment ${alignment}`);
    }
    const offset = dataOffset + relativeOffset;
    if (offset + tensor.byteSize > reader.fileSize) {
      throw new GgufFormatError(
        path,
        `truncated: tensor "${tensor.name}" needs bytes ${offset}..${offset + tensor.byteSize}, but the file ends at ${reader.fileSize}`,
      );
    }
    return { ...tensor, offset };
  });

  const architecture = metadata["general.architecture"];
  const fileType = metadata["general.type"];
  return {
    path,
    fileSize: reader.fileSize,
    version,
    tensorCount,
    metadata,
    tensors,
    dataOffset,
    alignment,
    architecture: typeof architecture === "string" ? architecture : null,
    fileType: typeof fileType === "string" ? fileType : null,
  };
}

function readTensorInfo(reader: GgufByteReader, path: string, index: number) {
  const name = reader.string(`name of tensor #${index}`);
  const dimCount = reader.u32(`dimension count of tensor "${name}"`);
  if (dimCount < 1 || dimCount > maxDims) {
    throw new GgufFormatError(path, `tensor "${name}" has ${dimCount} dimensions, expected 1 to ${maxDims}`);
  }
  const dims: number[] = [];
  for (let d = 0; d < dimCount; d++) {
    const dim = reader.u64(`dimension ${d} of tensor "${name}"`);
    if (dim < 1n || dim > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new GgufFormatError(path, `tensor "${name}" has dimension ${d} = ${dim}, expected a positive size`);
    }
    dims.push(Number(dim));
  }
  const type = reader.u32(`type of tensor "${name}"`);
  const layout = ggmlTensorType(type);
  if (!layout) throw new GgufFormatError(path, `tensor "${name}" has unknown ggml type ${type}`);
  if (dims[0]! % layout.blockSize !== 0) {
    throw new GgufFormatError(path, `tensor "${name}" has row length ${dims[0]}, not a multiple of the ${layout.name} block size ${layout.blockSize}`);
  }
  const offset = reader.u64(`offset of tensor "${name}"`);
  if (offset > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new GgufFormatError(path, `tensor "${name}" has data offset ${offset}, far beyond the end of the file (${reader.fileSize} bytes)`);
  }
  const elements = dims.reduce((product, dim) => product * dim, 1);
  const byteSize = (elements / layout.blockSize) * layout.typeSize;
  return { name, dims, type, typeName: layout.name, relativeOffset: Number(offset), byteSize };
}

function readValue(reader: GgufByteReader, path: string, type: number, key: string, maxArrayItems: number): GgufValue {
  const what = `value of "${key}"`;
  switch (type) {
    case GgufValueType.uint8:
      return reader.u8(what);
    case GgufValueType.int8:
      return reader.i8(what);
    case GgufValueType.uint16:
      return reader.u16(what);
    case GgufValueType.int16:
      return reader.i16(what);
    case GgufValueType.uint32:
      return reader.u32(what);
    case GgufValueType.int32:
      return reader.i32(what);
    case GgufValueType.float32:
      return reader.f32(what);
    case GgufValueType.float64:
      return reader.f64(what);
    case GgufValueType.bool: {
      const byte = reader.u8(what);
      if (byte > 1) throw new GgufFormatError(path, `${what} is a bool stored as ${byte}, expected 0 or 1`);
      return byte === 1;
    }
    case GgufValueType.uint64:
      return narrow(reader.u64(what));
    case GgufValueType.int64:
      return narrow(reader.i64(what));
    case GgufValueType.string:
      return reader.string(what);
    case GgufValueType.array:
      return readArray(reader, path, key, maxArrayItems);
    default:
      throw new GgufFormatError(path, `metadata "${key}" has unknown value type ${type}`);
  }
}

function readArray(reader: GgufByteReader, path: string, key: string, maxArrayItems: number): GgufArray {
  const itemType = reader.u32(`item type of array "${key}"`);
  if (itemType === GgufValueType.array) {
    throw new GgufFormatError(path, `metadata "${key}" is an array of arrays, which GGUF readers do not support`);
  }
  if (!(itemType in ggufFixedValueSize) && itemType !== GgufValueType.string) {
    throw new GgufFormatError(path, `metadata "${key}" is an array of unknown type ${itemType}`);
  }
  const itemSize = ggufFixedValueSize[itemType] ?? 8;
  const length = reader.length(`length of array "${key}"`, itemSize);
  const array: GgufArray = { itemType: itemType as GgufValueTypeId, length, items: null };
  if (length > maxArrayItems) {
    if (itemType === GgufValueType.string) {
      for (let i = 0; i < length; i++) reader.skip(reader.length(`length of "${key}"[${i}]`), `"${key}"[${i}]`);
    } else {
      reader.skip(length * itemSize, `${length} ${ggufValueTypeName(itemType)} items of "${key}"`);
    }
    return array;
  }
  const items: GgufValue[] = [];
  for (let i = 0; i < length; i++) items.push(readValue(reader, path, itemType, `${key}[${i}]`, maxArrayItems));
  array.items = items;
  return array;
}

function narrow(value: bigint): number | bigint {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value;
}
