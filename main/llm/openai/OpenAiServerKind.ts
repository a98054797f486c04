import type { OpenAiServerKind } from "../../../shared/backendConfig.js";

/**
 * Which server answers at `baseUrl`, from `GET {baseUrl}/models`: vLLM, SGLang and llama.cpp's
 * server name themselves in each model's `owned_by` ("vllm", "sglang", "llamacpp"), Ollama says
 * "library" or "ollama", OpenAI "openai" / "system". null when the list cannot be read or names
 * none of them (the request then carries only fields every server accepts or ignores).
 */
export async function detectServerKind(baseUrl: string, headers: Record<string, string>, signal: AbortSignal): Promise<OpenAiServerKind | null> {
  let body: unknown;
  let serverHeader: string;
  try {
    const response = await fetch(`${baseUrl}/models`, { headers, signal });
    if (!response.ok) return null;
    serverHeader = (response.headers.get("server") ?? "").toLowerCase();
    body = await response.json();
  } catch {
    return null;
  }
  const data = (body as { data?: unknown })?.data;
  const owners = Array.isArray(data) ? data.map((model) => String((model as { owned_by?: unknown })?.owned_by ?? "").toLowerCase()) : [];
  for (const owner of owners) {
    if (owner === "vllm") return "vllm";
    if (owner === "sglang") return "sglang";
    if (owner === "llamacpp" || owner === "llama.cpp") return "llama.cpp";
    if (owner === "library" || owner === "ollama") return "ollama";
    if (owner === "openai" || owner === "system" || owner.startsWith("openai")) return "openai";
  }
  if (serverHeader.includes("llama")) return "llama.cpp";
  return null;
}
