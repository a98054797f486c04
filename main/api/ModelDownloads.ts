// Model downloads started from the workbench: one at a time per URI, progress pushed as
// `modelProgress` events (throttled), cancellable.
import type { ModelProgressEvent } from "../../shared/api/events.js";
import type { ModelFile } from "../../shared/api/modelTypes.js";
import { describeModelFile } from "./listModelFiles.js";

export interface ModelDownloadsOptions {
  /** Where models are downloaded (the folder the models view lists). */
  modelsDir: string;
  emit: (event: ModelProgressEvent) => void;
  /** Least time between two progress events of one download. Defaults to 250 ms. */
  progressEveryMs?: number;
  /** How long the download host may take to accept a connection. Defaults to 5000 ms. */
  connectTimeoutMs?: number;
}

export class ModelDownloads {
  readonly #options: ModelDownloadsOptions;
  readonly #active = new Map<string, { abort: AbortController; done: Promise<ModelFile> }>();

  constructor(options: ModelDownloadsOptions) {
    this.#options = options;
  }

  /** Downloads `uri` (or joins the download already running); resolves with the local file. */
  download(uri: string): Promise<ModelFile> {
    const running = this.#active.get(uri);
    if (running) return running.done;
    const abort = new AbortController();
    const done = this.#run(uri, abort.signal).finally(() => this.#active.delete(uri));
    this.#active.set(uri, { abort, done });
    return done;
  }

  /** Cancels a running download; false when none runs for `uri`. */
  cancel(uri: string): boolean {
    const running = this.#active.get(uri);
    if (!running) return false;
    running.abort.abort(new Error(`download of ${uri} cancelled`));
    return true;
  }

  cancelAll(): void {
    for (const uri of [...this.#active.keys()]) this.cancel(uri);
  }

  async #run(uri: string, signal: AbortSignal): Promise<ModelFile> {
    const every = this.#options.progressEveryMs ?? 250;
    const base = { type: "modelProgress", model: uri, phase: "download" } as const;
    let last = 0;
    this.#options.emit({ ...base, fraction: null, bytes: null, totalBytes: null, state: "active" });
    try {
      const { resolveModelSource } = await import("../llm/llama/resolveModelSource.js"); // node-llama-cpp loads on first use
      const path = await resolveModelSource(uri, {
        modelsDir: this.#options.modelsDir,
        signal,
        connectTimeoutMs: this.#options.connectTimeoutMs,
        onDownloadProgress: ({ downloadedBytes, totalBytes }) => {
          const now = Date.now();
          if (now - last < every) return;
          last = now;
          this.#options.emit({ ...base, fraction: totalBytes > 0 ? downloadedBytes / totalBytes : null, bytes: downloadedBytes, totalBytes: totalBytes > 0 ? totalBytes : null, state: "active" });
        },
      });
      const file = describeModelFile(path);
      this.#options.emit({ ...base, fraction: 1, bytes: file.bytes, totalBytes: file.bytes, state: "done" });
      return file;
    } catch (error) {
      const message = signal.aborted ? `download of ${uri} cancelled` : (error as Error).message;
      this.#options.emit({ ...base, fraction: null, bytes: null, totalBytes: null, state: "failed", error: message });
      throw error;
    }
  }
}
