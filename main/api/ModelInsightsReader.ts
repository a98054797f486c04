// Adds GgufInsights to the Models page's file list. The llama.cpp runtime the estimates are for
// (its GPU, VRAM and RAM) is loaded on first use, once, and only when there is a file to describe.
import type { Llama } from "node-llama-cpp";
import type { GpuChoice } from "../../shared/backendConfig.js";
import type { ModelFile } from "../../shared/api/modelTypes.js";
import { readModelInsights } from "./modelInsights.js";

export interface ModelInsightsReaderOptions {
  /** The GPU the estimate assumes, as a run's `backend.gpu` would choose it. Defaults to "auto". */
  gpu?: GpuChoice;
}

export class ModelInsightsReader {
  readonly #gpu: GpuChoice;
  #llama: Promise<Llama> | null = null;

  constructor(options: ModelInsightsReaderOptions = {}) {
    this.#gpu = options.gpu ?? "auto";
  }

  /** The files with their insights; a file that cannot be read gets `insights: null` and the reason. */
  async describe(files: ModelFile[]): Promise<ModelFile[]> {
    if (files.length === 0) return files;
    let llama: Llama;
    try {
      llama = await this.#runtime();
    } catch (error) {
      return files.map((file) => ({ ...file, insights: null, insightsError: `no estimate: ${(error as Error).message}` }));
    }
    const described: ModelFile[] = [];
    for (const file of files) {
      try {
        described.push({ ...file, insights: await readModelInsights(file.path, llama) });
      } catch (error) {
        described.push({ ...file, insights: null, insightsError: `cannot read ${file.name} as a GGUF model: ${(error as Error).message}` });
      }
    }
    return described;
  }

  async dispose(): Promise<void> {
    const llama = await this.#llama?.catch(() => null);
    this.#llama = null;
    await llama?.dispose();
  }

  #runtime(): Promise<Llama> {
    if (!this.#llama) {
      this.#llama = import("../llm/llama/loadLlamaRuntime.js").then(({ loadLlamaRuntime }) => loadLlamaRuntime({ gpu: this.#gpu, threads: 1 }));
      this.#llama.catch(() => (this.#llama = null));
    }
    return this.#llama;
  }
}
