import type { LoraSpec } from "../../shared/backendConfig.js";
import type { ChatResult } from "../../shared/llm.js";
import type { ChatRequest, LlmBackend } from "../../main/llm/LlmBackend.js";

/**
 * The real backend with one sampling setting added: replies stop at the end of their first
 * sentence (a stop sequence, as a user would set one). A story model never ends a reply by itself,
 * and the reference protocol scores a reply cut off by the token budget as no answer; with the
 * stop, a one-sentence reply is the agent's answer. Everything else passes through.
 */
export function sentenceStopBackend(inner: LlmBackend): LlmBackend {
  return {
    get name() {
      return inner.name;
    },
    get parallelism() {
      return inner.parallelism;
    },
    get adapter() {
      return inner.adapter;
    },
    chat: (request: ChatRequest): Promise<ChatResult> => inner.chat({ ...request, sampling: { ...request.sampling, stop: request.sampling?.stop ?? ["."] } }),
    setAdapters: (lora: LoraSpec[]) => inner.setAdapters!(lora),
    unload: () => inner.unload!(),
    reload: () => inner.reload!(),
    dispose: () => inner.dispose(),
    // The model path, for the trainer's base model.
    ...("modelPath" in inner ? { modelPath: (inner as { modelPath: string }).modelPath } : {}),
  } as LlmBackend;
}
