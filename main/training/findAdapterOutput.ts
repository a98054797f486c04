import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { TrainerFailedError } from "./TrainerFailedError.js";

/** What a trainer left in its output folder. */
export type AdapterOutput = { kind: "gguf"; path: string } | { kind: "peft"; dir: string };

/**
 * Finds the trainer's adapter in its output folder (and up to two levels below): one `.gguf` file,
 * else a PEFT adapter folder (one with `adapter_config.json`) to convert. Several GGUF files, or
 * nothing at all, fail with a message listing what was found.
 */
export function findAdapterOutput(outputDir: string, log = ""): AdapterOutput {
  const ggufs: string[] = [];
  const pefts: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (existsSync(join(dir, "adapter_config.json"))) pefts.push(dir);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isFile() && entry.name.toLowerCase().endsWith(".gguf")) ggufs.push(path);
      else if (entry.isDirectory() && depth < 2) walk(path, depth + 1);
    }
  };
  walk(outputDir, 0);
  if (ggufs.length === 1) return { kind: "gguf", path: ggufs[0]! };
  if (ggufs.length > 1) {
    throw new TrainerFailedError(`the trainer wrote ${ggufs.length} GGUF files to ${outputDir} (${ggufs.map((p) => relative(outputDir, p)).join(", ")}); expected exactly one LoRA adapter`, log);
  }
  if (pefts.length > 0) return { kind: "peft", dir: pefts.sort((a, b) => a.length - b.length)[0]! };
  throw new TrainerFailedError(`the trainer finished but left no GGUF LoRA (*.gguf) and no PEFT adapter (adapter_config.json) in ${outputDir}`, log);
}
