// The value types of GGUF metadata, as numbered in the GGUF specification.

export const GgufValueType = {
  uint8: 0,
  int8: 1,
  uint16: 2,
  int16: 3,
  uint32: 4,
  int32: 5,
  float32: 6,
  bool: 7,
  string: 8,
  array: 9,
  uint64: 10,
  int64: 11,
  float64: 12,
} as const;

export type GgufValueTypeName = keyof typeof GgufValueType;
export type GgufValueTypeId = (typeof GgufValueType)[GgufValueTypeName];

/** Byte width of each fixed-size value type; strings and arrays are variable. */
export const ggufFixedValueSize: Readonly<Record<number, number>> = {
  [GgufValueType.uint8]: 1,
  [GgufValueType.int8]: 1,
  [GgufValueType.uint16]: 2,
  [GgufValueType.int16]: 2,
  [GgufValueType.uint32]: 4,
  [GgufValueType.int32]: 4,
  [GgufValueType.float32]: 4,
  [GgufValueType.bool]: 1,
  [GgufValueType.uint64]: 8,
  [GgufValueType.int64]: 8,
  [GgufValueType.float64]: 8,
};

export function ggufValueTypeName(id: number): string {
  const entry = Object.entries(GgufValueType).find(([, value]) => value === id);
  return entry ? entry[0] : `unknown type ${id}`;
}
