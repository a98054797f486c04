import { maskedCrc32c } from "./crc32c.js";

/** One scalar point: a metric's value at a step (an iteration), written as a TensorBoard summary. */
export interface ScalarPoint {
  tag: string;
  step: number;
  value: number;
  /** Seconds since the epoch. */
  wallTime: number;
}

/**
 * The bytes of a TensorBoard event file (TFRecord framing of `tensorflow.Event` protocol buffers):
 * a `brain.Event:2` version record, then one event per step holding that step's scalars. Only the
 * few protobuf fields TensorBoard reads for scalars are written, encoded by hand (no TensorFlow).
 */
export function tensorboardEventFile(points: readonly ScalarPoint[], startTime: number): Buffer {
  const records: Buffer[] = [record(event({ wallTime: startTime, step: 0, fileVersion: "brain.Event:2" }))];
  const bySteps = new Map<number, ScalarPoint[]>();
  for (const point of points) {
    const list = bySteps.get(point.step) ?? [];
    list.push(point);
    bySteps.set(point.step, list);
  }
  for (const [step, list] of [...bySteps].sort((a, b) => a[0] - b[0])) {
    records.push(record(event({ wallTime: list[0]!.wallTime, step, values: list })));
  }
  return Buffer.concat(records);
}

/** TFRecord framing: length, masked CRC of the length, data, masked CRC of the data. */
function record(data: Buffer): Buffer {
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(data.length));
  const lengthCrc = Buffer.alloc(4);
  lengthCrc.writeUInt32LE(maskedCrc32c(length));
  const dataCrc = Buffer.alloc(4);
  dataCrc.writeUInt32LE(maskedCrc32c(data));
  return Buffer.concat([length, lengthCrc, data, dataCrc]);
}

// tensorflow.Event: wall_time = 1 (double), step = 2 (int64), file_version = 3 (string), summary = 5 (Summary).
// Summary: value = 1 (repeated Summary.Value). Summary.Value: tag = 1 (string), simple_value = 2 (float).
function event(fields: { wallTime: number; step: number; fileVersion?: string; values?: readonly ScalarPoint[] }): Buffer {
  const parts = [fixed64Field(1, fields.wallTime), varintField(2, fields.step)];
  if (fields.fileVersion !== undefined) parts.push(bytesField(3, Buffer.from(fields.fileVersion, "utf8")));
  if (fields.values) {
    const summary = Buffer.concat(fields.values.map((point) => bytesField(1, Buffer.concat([bytesField(1, Buffer.from(point.tag, "utf8")), fixed32Field(2, point.value)]))));
    parts.push(bytesField(5, summary));
  }
  return Buffer.concat(parts);
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = BigInt(Math.trunc(value));
  if (rest < 0n) rest += 1n << 64n;
  do {
    let byte = Number(rest & 0x7fn);
    rest >>= 7n;
    if (rest > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (rest > 0n);
  return Buffer.from(bytes);
}

function varintField(field: number, value: number): Buffer {
  return Buffer.concat([varint(field << 3), varint(value)]);
}

function fixed64Field(field: number, value: number): Buffer {
  const body = Buffer.alloc(8);
  body.writeDoubleLE(value);
  return Buffer.concat([varint((field << 3) | 1), body]);
}

function fixed32Field(field: number, value: number): Buffer {
  const body = Buffer.alloc(4);
  body.writeFloatLE(value);
  return Buffer.concat([varint((field << 3) | 5), body]);
}

function bytesField(field: number, body: Buffer): Buffer {
  return Buffer.concat([varint((field << 3) | 2), varint(body.length), body]);
}
