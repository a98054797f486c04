import type { LlmBackend } from "./LlmBackend.js";

/** One line for the CLI when a run starts: the backend and how it runs calls in parallel, e.g. `backend llama:m.gguf: 4 sequences x 8192 tokens in one context (batch 512), cuda, 4 threads`. */
export function describeBackend(backend: LlmBackend): string {
  const layout = backend.layout ?? `${backend.parallelism} call${backend.parallelism === 1 ? "" : "s"} at once`;
  return `backend ${backend.name}${backend.adapter ? ` (adapter ${backend.adapter})` : ""}: ${layout}`;
}
