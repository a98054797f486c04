import type { ChatRequest, LlmBackend } from "../llm/LlmBackend.js";

/** One chat call as the engine made it: who asked (a play's routing key, else "design" for the designer and hint calls), when it was made and when it returned (`performance.now()`). */
export interface TracedRequest {
  key: string;
  calledAt: number;
  returnedAt: number;
}

/**
 * The backend with every chat call recorded (benchmarks only): the same object for everything but
 * `chat`, which notes the call's time, its return's and the play it belongs to.
 */
export function traceRequests(backend: LlmBackend): { backend: LlmBackend; requests: TracedRequest[] } {
  const requests: TracedRequest[] = [];
  const chat = async (request: ChatRequest) => {
    const calledAt = performance.now();
    try {
      return await backend.chat(request);
    } finally {
      requests.push({ key: request.routingKey ?? "design", calledAt, returnedAt: performance.now() });
    }
  };
  const traced = new Proxy(backend, {
    get(target, property) {
      if (property === "chat") return chat;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { backend: traced, requests };
}
