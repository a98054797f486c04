import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import type { RunConfig } from "../../shared/runConfig.js";
import { InputError } from "../../shared/validation/InputError.js";
import { isModelUri } from "../llm/llama/isModelUri.js";
import { trainingRefusal } from "../training/createTrainingRound.js";

/**
 * Refuses a config whose local files are missing before a run is created for it, naming the key
 * and the path (paths already resolved against the config file), and one whose backend the
 * configured training cannot train.
 */
export function checkRunConfigFiles(config: RunConfig, where: string): void {
  const missing = (key: string, path: string) => new InputError(`${where}: ${key}: ${path} does not exist`);
  if (config.backend.kind === "llama") {
    if (!isModelUri(config.backend.modelPath)) {
      if (!existsSync(config.backend.modelPath)) throw missing("backend.modelPath", config.backend.modelPath);
      const notGguf = notGgufReason(config.backend.modelPath);
      if (notGguf) {
        throw new InputError(`${where}: backend.modelPath: ${config.backend.modelPath} is not a GGUF model (${notGguf}); the local backend loads .gguf files: download one (the Models page, or an hf: URI) or convert yours with llama.cpp's convert_hf_to_gguf.py`);
      }
    }
    config.backend.lora?.forEach((adapter, i) => {
      if (!existsSync(adapter.path)) throw missing(`backend.lora[${i}].path`, adapter.path);
    });
  }
  if (config.corpus && !existsSync(config.corpus.path)) throw missing("corpus.path", config.corpus.path);
  const refusal = trainingRefusal(config);
  if (refusal) throw new InputError(`${where}: ${refusal}`);
}

/** Why a file is not a GGUF model (a folder, too short, or another format's first bytes), or null when it starts with the GGUF magic. */
function notGgufReason(path: string): string | null {
  if (statSync(path).isDirectory()) return "it is a folder";
  const head = Buffer.alloc(4);
  const fd = openSync(path, "r");
  let read: number;
  try {
    read = readSync(fd, head, 0, 4, 0);
  } finally {
    closeSync(fd);
  }
  if (read === 4 && head.toString("latin1") === "GGUF") return null;
  if (read < 4) return `it has only ${read} bytes`;
  const printable = [...head].map((byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, "0")}`)).join("");
  return `it starts with "${printable}", not "GGUF"`;
}
