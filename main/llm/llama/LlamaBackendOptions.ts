import type { LlamaBackendSettings } from "../../../shared/backendConfig.js";
import type { DownloadProgress } from "./resolveModelSource.js";

export interface LlamaBackendOptions extends LlamaBackendSettings {
  /** A GGUF path, or a model URI (`hf:owner/repo/file.gguf`, `https://...`) downloaded into `modelsDir`. */
  model: string;
  /** Called as a model URI downloads. Defaults to none. */
  onDownloadProgress?: (progress: DownloadProgress) => void;
  /**
   * Whether node-llama-cpp may compile llama.cpp from source when no prebuilt binary fits the
   * requested GPU. Defaults to "never" (fail fast with a clear error instead of a long build).
   */
  build?: "never" | "auto";
  /** node-llama-cpp's log level. Defaults to "error" (llama.cpp warnings are hidden). */
  logLevel?: "disabled" | "fatal" | "error" | "warn" | "info" | "log" | "debug";
}
