import type { GgufValueTypeId } from "./ggufValueType.js";

/** A metadata array. `items` is null when the array was longer than the reader was asked to keep. */
export interface GgufArray {
  itemType: GgufValueTypeId;
  length: number;
  items: GgufValue[] | null;
}

/** A metadata value. 64-bit integers are numbers when they fit exactly, else bigints. */
export type GgufValue = number | bigint | boolean | string | GgufArray;

export interface GgufTensorInfo {
  name: string;
  /** Dimensions in ggml order (`dims[0]` is the row length). */
  dims: number[];
  /** ggml type id (0 = F32, 1 = F16, ...). */
  type: number;
  typeName: string;
  /** Absolute byte offset of the tensor's data in the file. */
  offset: number;
  byteSize: number;
}

/** What `readGgufInfo` learned from a GGUF file's header, metadata and tensor table. */
export interface GgufInfo {
  path: string;
  fileSize: number;
  version: number;
  tensorCount: number;
  metadata: Record<string, GgufValue>;
  tensors: GgufTensorInfo[];
  /** Absolute offset where tensor data starts. */
  dataOffset: number;
  alignment: number;
  /** `general.architecture`, or null when missing. */
  architecture: string | null;
  /** `general.type` ("model", "adapter", ...), or null when missing (older files are models). */
  fileType: string | null;
}
