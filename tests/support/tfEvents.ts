// Reads TensorBoard event files back in tests: TFRecord framing (both CRCs checked) and the few
// protobuf fields of tensorflow.Event that SPADE writes (scalars, text, histograms).
import { maskedCrc32c } from "../../main/exports/crc32c.js";

export interface DecodedEvent {
  wallTime: number;
  step: number;
  fileVersion: string | null;
  /** Scalars: [tag, value]. */
  values: Array<[string, number]>;
  /** Text summaries: [tag, text]. */
  texts: Array<[string, string]>;
  /** Histograms: [tag, number of values]. */
  histograms: Array<[string, number]>;
}

/** The records of a TFRecord file; a partly written last record (a file being appended) is left out. */
export function readTfRecords(bytes: Buffer): Buffer[] {
  const records: Buffer[] = [];
  let at = 0;
  while (at + 12 <= bytes.length) {
    const length = Number(bytes.readBigUInt64LE(at));
    if (at + 16 + length > bytes.length) break;
    if (bytes.readUInt32LE(at + 8) !== maskedCrc32c(bytes.subarray(at, at + 8))) throw new Error(`bad length CRC at byte ${at}`);
    const data = bytes.subarray(at + 12, at + 12 + length);
    if (bytes.readUInt32LE(at + 12 + length) !== maskedCrc32c(data)) throw new Error(`bad data CRC at byte ${at}`);
    records.push(data);
    at += 16 + length;
  }
  return records;
}

export function decodeEvent(data: Buffer): DecodedEvent {
  const event: DecodedEvent = { wallTime: 0, step: 0, fileVersion: null, values: [], texts: [], histograms: [] };
  for (const field of fields(data)) {
    if (field.number === 1) event.wallTime = field.bytes.readDoubleLE(0);
    else if (field.number === 2) event.step = field.varint;
    else if (field.number === 3) event.fileVersion = field.bytes.toString("utf8");
    else if (field.number === 5) {
      for (const value of fields(field.bytes)) {
        let tag = "";
        let simple: number | null = null;
        let text: string | null = null;
        let histogramCount: number | null = null;
        for (const part of fields(value.bytes)) {
          if (part.number === 1) tag = part.bytes.toString("utf8");
          if (part.number === 2) simple = part.bytes.readFloatLE(0);
          if (part.number === 8) for (const tensorField of fields(part.bytes)) if (tensorField.number === 8) text = tensorField.bytes.toString("utf8");
          if (part.number === 5) for (const histoField of fields(part.bytes)) if (histoField.number === 3) histogramCount = histoField.bytes.readDoubleLE(0);
        }
        if (text !== null) event.texts.push([tag, text]);
        else if (histogramCount !== null) event.histograms.push([tag, histogramCount]);
        else event.values.push([tag, simple ?? NaN]);
      }
    }
  }
  return event;
}

function* fields(data: Buffer): Generator<{ number: number; varint: number; bytes: Buffer }> {
  let at = 0;
  const varint = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = data[at++]!;
      result += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return result;
      shift += 7;
    }
  };
  while (at < data.length) {
    const key = varint();
    const wire = key & 7;
    if (wire === 0) yield { number: key >> 3, varint: varint(), bytes: Buffer.alloc(0) };
    else if (wire === 1) yield { number: key >> 3, varint: 0, bytes: data.subarray(at, (at += 8)) };
    else if (wire === 5) yield { number: key >> 3, varint: 0, bytes: data.subarray(at, (at += 4)) };
    else {
      const length = varint();
      yield { number: key >> 3, varint: 0, bytes: data.subarray(at, (at += length)) };
    }
  }
}
