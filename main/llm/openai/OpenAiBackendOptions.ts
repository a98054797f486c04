import type { OpenAiBackendSettings } from "../../../shared/backendConfig.js";

export interface OpenAiBackendOptions extends Omit<OpenAiBackendSettings, "apiKeyEnv"> {
  /** E.g. `http://127.0.0.1:8000/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  /** The served model's name. */
  model: string;
  /** Extra request headers. Defaults to none. */
  headers?: Record<string, string>;
  /** Told what the backend changed in its requests because the server refused a field. Defaults to `process.emitWarning`. */
  onWarning?: (message: string) => void;
}
