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

/** The first record of an event file: the file version. */
export function fileVersionRecord(wallTime: number): Buffer {
  return record(event({ wallTime, step: 0, fileVersion: "brain.Event:2" }));
}

/** One record holding scalars of one step (a live writer appends these as the run goes). */
export function scalarsRecord(step: number, wallTime: number, points: readonly Omit<ScalarPoint, "step" | "wallTime">[]): Buffer {
  return record(event({ wallTime, step, values: points.map((point) => ({ ...point, step, wallTime })) }));
}

/** One record holding a text summary (TensorBoard's Text tab renders it as Markdown). */
export function textRecord(tag: string, text: string, step: number, wallTime: number): Buffer {
  // Summary.Value: tag = 1, metadata = 9 (SummaryMetadata.plugin_data = 1: PluginData.plugin_name = 1),
  // tensor = 8 (TensorProto: dtype = 1 (DT_STRING = 7), tensor_shape = 2 (empty: a scalar), string_val = 8).
  const metadata = bytesField(1, bytesField(1, Buffer.from("text", "utf8")));
  const tensor = Buffer.concat([varintField(1, 7), bytesField(2, Buffer.alloc(0)), bytesField(8, Buffer.from(text, "utf8"))]);
  const value = Buffer.concat([bytesField(1, Buffer.from(tag, "utf8")), bytesField(9, metadata), bytesField(8, tensor)]);
  return record(Buffer.concat([fixed64Field(1, wallTime), varintField(2, step), bytesField(5, bytesField(1, value))]));
}

/** One record holding a histogram of `values` (TensorBoard's Histograms and Distributions tabs); nothing for no values. */
export function histogramRecord(tag: string, values: readonly number[], step: number, wallTime: number, buckets = 30): Buffer | null {
  if (values.length === 0) return null;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const width = max > min ? (max - min) / buckets : 1;
  const limits = max > min ? Array.from({ length: buckets }, (_, i) => (i === buckets - 1 ? max : min + (i + 1) * width)) : [max];
  const counts = limits.map(() => 0);
  for (const value of values) counts[Math.min(limits.length - 1, max > min ? Math.floor((value - min) / width) : 0)]! += 1;
  // HistogramProto: min = 1, max = 2, num = 3, sum = 4, sum_squares = 5 (doubles), bucket_limit = 6, bucket = 7 (packed doubles).
  const packed = (numbers: number[]) => {
    const body = Buffer.alloc(numbers.length * 8);
    numbers.forEach((n, i) => body.writeDoubleLE(n, i * 8));
    return body;
  };
  const histo = Buffer.concat([
    fixed64Field(1, min),
    fixed64Field(2, max),
    fixed64Field(3, values.length),
    fixed64Field(4, values.reduce((sum, v) => sum + v, 0)),
    fixed64Field(5, values.reduce((sum, v) => sum + v * v, 0)),
    bytesField(6, packed(limits)),
    bytesField(7, packed(counts)),
  ]);
  const value = Buffer.concat([bytesField(1, Buffer.from(tag, "utf8")), bytesField(5, histo)]);
  return record(Buffer.concat([fixed64Field(1, wallTime), varintField(2, step), bytesField(5, bytesField(1, value))]));
}

/** A hyperparameter's value as TensorBoard's HParams plugin takes it (a scalar). */
export type HParamValue = number | string | boolean;

/** How a session (a run) ended, as the HParams plugin's `Status` enum numbers it. */
export const hparamsStatus = { unknown: 0, success: 1, failure: 2, running: 3 } as const;

/**
 * One record that makes the event file's folder a session of TensorBoard's HParams plugin with
 * these hyperparameters (`_hparams_/session_start_info`); the plugin takes the folder's scalars as
 * the session's metrics, so the HPARAMS tab lists the run with its config and curves.
 */
export function hparamsSessionStartRecord(hparams: Readonly<Record<string, HParamValue>>, startTime: number, wallTime: number): Buffer {
  // SessionStartInfo: hparams = 1 (map<string, google.protobuf.Value>: entries with key = 1, value = 2), start_time_secs = 5.
  // google.protobuf.Value: number_value = 2 (double), string_value = 3, bool_value = 4.
  const entries = Object.entries(hparams).map(([name, value]) => {
    const encoded = typeof value === "number" ? fixed64Field(2, value) : typeof value === "boolean" ? varintField(4, value ? 1 : 0) : bytesField(3, Buffer.from(value, "utf8"));
    return bytesField(1, Buffer.concat([bytesField(1, Buffer.from(name, "utf8")), bytesField(2, encoded)]));
  });
  const info = Buffer.concat([...entries, fixed64Field(5, startTime)]);
  return hparamsRecord("_hparams_/session_start_info", bytesField(3, info), wallTime);
}

/** One record that ends the HParams session with a status (`_hparams_/session_end_info`). */
export function hparamsSessionEndRecord(status: number, endTime: number, wallTime: number): Buffer {
  // SessionEndInfo: status = 1 (enum), end_time_secs = 2.
  return hparamsRecord("_hparams_/session_end_info", bytesField(4, Buffer.concat([varintField(1, status), fixed64Field(2, endTime)])), wallTime);
}

/** A summary value carrying HParamsPluginData (version = 1: 0, then the data oneof field) in its metadata, with the plugin's empty tensor. */
function hparamsRecord(tag: string, data: Buffer, wallTime: number): Buffer {
  // SummaryMetadata.plugin_data = 1 (PluginData: plugin_name = 1, content = 2); the version 0 is the default, so not written.
  const metadata = bytesField(1, Buffer.concat([bytesField(1, Buffer.from("hparams", "utf8")), bytesField(2, data)]));
  // TensorProto: dtype = 1 (DT_FLOAT = 1), tensor_shape = 2 (one dimension of size 0): an empty float vector.
  const tensor = Buffer.concat([varintField(1, 1), bytesField(2, bytesField(2, Buffer.alloc(0)))]);
  const value = Buffer.concat([bytesField(1, Buffer.from(tag, "utf8")), bytesField(9, metadata), bytesField(8, tensor)]);
  return record(Buffer.concat([fixed64Field(1, wallTime), varintField(2, 0), bytesField(5, bytesField(1, value))]));
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
