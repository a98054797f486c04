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
  /** HParams-plugin summaries (the plugin data in the value's metadata). */
  hparams: DecodedHParams[];
}

/** HParamsPluginData, as TensorBoard's HParams plugin parses it. */
export interface DecodedHParams {
  tag: string;
  version: number;
  /** The value's tensor: dtype and the dimensions' sizes (the plugin's empty float vector is dtype 1, [0]). */
  tensor: { dtype: number; dims: number[] };
  sessionStartInfo?: { hparams: Record<string, number | string | boolean>; startTimeSecs: number };
  sessionEndInfo?: { status: number; endTimeSecs: number };
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
  const event: DecodedEvent = { wallTime: 0, step: 0, fileVersion: null, values: [], texts: [], histograms: [], hparams: [] };
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
        let pluginName: string | null = null;
        let pluginContent: Buffer = Buffer.alloc(0);
        let tensor: Buffer = Buffer.alloc(0);
        for (const part of fields(value.bytes)) {
          if (part.number === 1) tag = part.bytes.toString("utf8");
          if (part.number === 9) {
            for (const metadataField of fields(part.bytes)) {
              if (metadataField.number !== 1) continue;
              for (const pluginField of fields(metadataField.bytes)) {
                if (pluginField.number === 1) pluginName = pluginField.bytes.toString("utf8");
                if (pluginField.number === 2) pluginContent = pluginField.bytes;
              }
            }
          }
          if (part.number === 8) tensor = part.bytes;
          if (part.number === 2) simple = part.bytes.readFloatLE(0);
          if (part.number === 8) for (const tensorField of fields(part.bytes)) if (tensorField.number === 8) text = tensorField.bytes.toString("utf8");
          if (part.number === 5) for (const histoField of fields(part.bytes)) if (histoField.number === 3) histogramCount = histoField.bytes.readDoubleLE(0);
        }
        if (pluginName === "hparams") event.hparams.push(decodeHParams(tag, pluginContent, tensor));
        else if (text !== null) event.texts.push([tag, text]);
        else if (histogramCount !== null) event.histograms.push([tag, histogramCount]);
        else event.values.push([tag, simple ?? NaN]);
      }
    }
  }
  return event;
}

function decodeHParams(tag: string, content: Buffer, tensorBytes: Buffer): DecodedHParams {
  const tensor = { dtype: 0, dims: [] as number[] };
  for (const field of fields(tensorBytes)) {
    if (field.number === 1) tensor.dtype = field.varint;
    if (field.number === 2) for (const dim of fields(field.bytes)) if (dim.number === 2) tensor.dims.push([...fields(dim.bytes)].find((f) => f.number === 1)?.varint ?? 0);
  }
  const decoded: DecodedHParams = { tag, version: 0, tensor };
  for (const field of fields(content)) {
    if (field.number === 1) decoded.version = field.varint;
    if (field.number === 3) {
      const info = { hparams: {} as Record<string, number | string | boolean>, startTimeSecs: 0 };
      for (const part of fields(field.bytes)) {
        if (part.number === 5) info.startTimeSecs = part.bytes.readDoubleLE(0);
        if (part.number !== 1) continue;
        let key = "";
        let value: number | string | boolean = NaN;
        for (const entry of fields(part.bytes)) {
          if (entry.number === 1) key = entry.bytes.toString("utf8");
          if (entry.number === 2) {
            for (const kind of fields(entry.bytes)) {
              if (kind.number === 2) value = kind.bytes.readDoubleLE(0);
              if (kind.number === 3) value = kind.bytes.toString("utf8");
              if (kind.number === 4) value = kind.varint === 1;
            }
          }
        }
        info.hparams[key] = value;
      }
      decoded.sessionStartInfo = info;
    }
    if (field.number === 4) {
      const info = { status: 0, endTimeSecs: 0 };
      for (const part of fields(field.bytes)) {
        if (part.number === 1) info.status = part.varint;
        if (part.number === 2) info.endTimeSecs = part.bytes.readDoubleLE(0);
      }
      decoded.sessionEndInfo = info;
    }
  }
  return decoded;
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
