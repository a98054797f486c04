import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { JsonlWriter, type WrittenFile } from "./JsonlWriter.js";
import type { TrainingBatch } from "./TrainingBatch.js";

/** Writes `batch.jsonl`: the header line, then one sequence per line (then rows without tokens, when kept). */
export function writeTrainingBatch(path: string, batch: TrainingBatch): WrittenFile {
  mkdirSync(dirname(path), { recursive: true });
  const writer = new JsonlWriter(path);
  try {
    writer.write(batch.header);
    for (const line of batch.lines) writer.write(line);
    for (const row of batch.untokenised) writer.write(row);
  } catch (error) {
    writer.close();
    throw error;
  }
  return writer.close();
}
