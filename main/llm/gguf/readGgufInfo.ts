import { open, stat } from "node:fs/promises";
import { GgufFormatError } from "./GgufFormatError.js";
import type { GgufArray, GgufInfo, GgufTensorInfo, GgufValue } from "./GgufInfo.js";
import { ggmlTensorType } from "./ggmlTensorType.js";

export interface ReadGgufInfoOptions {
  /** Arrays longer than this keep only their length (tokenizer vocabularies are large). Defaults to 1024. */
  maxArrayItems?: number;
}

const defaultAlignment = 32;
const splitPart = /-(\d{5})-of-(\d{5})\.gguf$/i;

/**
 * Reads a GGUF file's header, metadata and tensor table with node-llama-cpp's `readGgufFileInfo`
 * (which also splices the parts of a split model, `name-00001-of-00003.gguf`), then checks what
 * llama.cpp would otherwise abort the process on: every tensor's type is known, its row length fits
 * its block size, and its data lies inside its part's file. Throws GgufFormatError naming the file
 * and the problem. Metadata comes back flat (`"llama.context_length"`), 64-bit integers as numbers
 * when they fit exactly.
 */
export async function readGgufInfo(path: string, options: ReadGgufInfoOptions = {}): Promise<GgufInfo> {
  const maxArrayItems = options.maxArrayItems ?? 1024;
  const parts = partPaths(path);
  const sizes: number[] = [];
  for (const part of parts) {
    try {
      sizes.push((await stat(part)).size);
    } catch (error) {
      const which = part === path ? "" : ` part ${part} of the split model`;
      throw new GgufFormatError(path, `cannot open the file${which} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  if (sizes[0]! < 8) throw new GgufFormatError(path, `not a GGUF file: only ${sizes[0]} bytes long`);
  await checkMagicAndVersion(path);
  // Loaded on demand: node-llama-cpp takes about a second to import.
  const { readGgufFileInfo } = await import("node-llama-cpp");
  let info: Awaited<ReturnType<typeof readGgufFileInfo>>;
  try {
    info = await readGgufFileInfo(path, { sourceType: "filesystem", readTensorInfo: true, logWarnings: false, spliceSplitFiles: true });
  } catch (error) {
    throw new GgufFormatError(path, describeParseError((error as Error).message, sizes[0]!));
  }
  if ((info.infoEndOffset ?? 0) > sizes[0]!) {
    throw new GgufFormatError(path, `truncated: the header and tensor table end at byte ${info.infoEndOffset}, but the file ends at ${sizes[0]}`);
  }
  const metadata: Record<string, GgufValue> = {};
  flatten(info.metadata as unknown as Record<string, unknown>, "", metadata, maxArrayItems);
  const alignmentValue = metadata["general.alignment"] ?? defaultAlignment;
  if (typeof alignmentValue !== "number" || alignmentValue <= 0 || alignmentValue % 8 !== 0) {
    throw new GgufFormatError(path, `general.alignment is ${String(alignmentValue)}, expected a positive multiple of 8`);
  }
  const tensors = (info.fullTensorInfo ?? info.tensorInfo ?? []).map((tensor): GgufTensorInfo & { part: number } => {
    const dims = tensor.dimensions.map(Number);
    const layout = ggmlTensorType(tensor.ggmlType);
    if (!layout) throw new GgufFormatError(path, `tensor "${tensor.name}" has unknown ggml type ${tensor.ggmlType}`);
    if (dims.length === 0 || dims.some((d) => !Number.isSafeInteger(d) || d <= 0)) {
      const where = parts.length > 1 ? ` in part ${parts[(tensor.filePart ?? 1) - 1]}` : "";
      throw new GgufFormatError(path, `tensor "${tensor.name}"${where} has dimensions [${dims}], expected positive sizes (a truncated or corrupt file?)`);
    }
    if (dims[0]! % layout.blockSize !== 0) {
      throw new GgufFormatError(path, `tensor "${tensor.name}" has row length ${dims[0]}, not a multiple of the ${layout.name} block size ${layout.blockSize}`);
    }
    const elements = dims.reduce((a, b) => a * b, 1);
    return { name: tensor.name, dims, type: tensor.ggmlType, typeName: layout.name, offset: Number(tensor.fileOffset), byteSize: (elements / layout.blockSize) * layout.typeSize, part: tensor.filePart ?? 1 };
  });
  for (const tensor of tensors) {
    const size = sizes[tensor.part - 1] ?? sizes[0]!;
    if (tensor.offset + tensor.byteSize > size) {
      const where = parts.length > 1 ? ` of part ${parts[tensor.part - 1]}` : "";
      throw new GgufFormatError(path, `truncated: tensor "${tensor.name}" needs bytes ${tensor.offset}..${tensor.offset + tensor.byteSize}, but the file${where} ends at ${size}`);
    }
  }
  const firstPart = tensors.filter((tensor) => tensor.part === 1);
  const dataOffset = firstPart.length > 0 ? Math.min(...firstPart.map((tensor) => tensor.offset)) : Math.ceil((info.infoEndOffset ?? 0) / alignmentValue) * alignmentValue;
  const architecture = metadata["general.architecture"];
  const fileType = metadata["general.type"];
  return {
    path,
    fileSize: sizes.reduce((a, b) => a + b, 0),
    parts: parts.length,
    version: info.version,
    tensorCount: tensors.length,
    metadata,
    tensors: tensors.map(({ part: _part, ...tensor }) => tensor),
    dataOffset,
    alignment: alignmentValue,
    architecture: typeof architecture === "string" ? architecture : null,
    fileType: typeof fileType === "string" ? fileType : null,
  };
}

/** The magic bytes and version, read here so a wrong file gets a plain message before any parsing. */
async function checkMagicAndVersion(path: string): Promise<void> {
  const file = await open(path, "r");
  try {
    const head = Buffer.alloc(8);
    await file.read(head, 0, 8, 0);
    const magic = head.subarray(0, 4).toString("latin1");
    if (magic !== "GGUF") throw new GgufFormatError(path, `not a GGUF file: magic bytes are ${JSON.stringify(magic)}, expected "GGUF"`);
    const version = head.readUInt32LE(4);
    if (version !== 2 && version !== 3) {
      throw new GgufFormatError(path, `unsupported GGUF version ${version}${version > 0xffff ? " (a big-endian file?)" : ""}, expected 2 or 3`);
    }
  } finally {
    await file.close();
  }
}

/** Every part of a split model named `...-0000k-of-0000n.gguf` (any part may be given), else just `path`. */
function partPaths(path: string): string[] {
  const match = splitPart.exec(path);
  if (!match) return [path];
  const count = Number(match[2]);
  if (count < 1) return [path];
  return Array.from({ length: count }, (_, i) => path.replace(splitPart, `-${String(i + 1).padStart(5, "0")}-of-${match[2]}.gguf`));
}

function flatten(object: Record<string, unknown>, prefix: string, into: Record<string, GgufValue>, maxArrayItems: number): void {
  for (const [key, value] of Object.entries(object)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (Array.isArray(value)) into[name] = toArray(value, maxArrayItems);
    else if (typeof value === "object" && value !== null) flatten(value as Record<string, unknown>, name, into, maxArrayItems);
    else into[name] = scalar(value);
  }
}

function toArray(items: unknown[], maxArrayItems: number): GgufArray {
  return { length: items.length, items: items.length > maxArrayItems ? null : items.map((item) => scalar(item)) };
}

function scalar(value: unknown): GgufValue {
  if (typeof value === "bigint") return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "string") return value;
  return String(value);
}

function describeParseError(message: string, size: number): string {
  if (/magic/i.test(message)) return `not a GGUF file (${message})`;
  if (/out of range|beyond|end of|EOF|offset/i.test(message)) return `truncated or corrupt: the header cannot be read within the file's ${size} bytes (${message})`;
  return `cannot read the GGUF header (${message})`;
}
