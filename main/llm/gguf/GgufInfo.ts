/** A metadata array. `items` is null when the array was longer than the reader was asked to keep. */
export interface GgufArray {
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
  /** Absolute byte offset of the tensor's data in its file (its part's, for a split model). */
  offset: number;
  byteSize: number;
}

/** What `readGgufInfo` learned from a GGUF file's header, metadata and tensor table. */
export interface GgufInfo {
  path: string;
  /** Bytes of all parts together. */
  fileSize: number;
  /** Files the model is split into (1 unless `name-00001-of-0000n.gguf`). */
  parts: number;
  version: number;
  tensorCount: number;
  metadata: Record<string, GgufValue>;
  tensors: GgufTensorInfo[];
  /** Absolute offset where tensor data starts (in the first part). */
  dataOffset: number;
  alignment: number;
  /** `general.architecture`, or null when missing. */
  architecture: string | null;
  /** `general.type` ("model", "adapter", ...), or null when missing (older files are models). */
  fileType: string | null;
}
