import type { ChatMessage } from "../../shared/llm.js";
import { checkModelFile } from "../llm/gguf/checkModelFile.js";
import { LlamaBackend } from "../llm/llama/LlamaBackend.js";
import type { BenchSection } from "./BenchSection.js";
import { BenchSkipped } from "./BenchSkipped.js";
import { benchModel } from "./benchModel.js";
import { measureRawTokensPerSec } from "./rawTokens.js";

const tokens = 1024;


/**
 * The local backend's figures on one small model: node-llama-cpp's raw generation speed with 1 and
 * 2 sequences, the same budget through LlamaBackend.chat (chat template, sequence pool,
 * probabilities; a reply may end early at end-of-story), how much a cached prefix saves over a
 * prompt-heavy 12-turn conversation, and the cost of the GGUF check.
 */
export const rawTokensBench: BenchSection = {
  name: "llm",
  async run(log): Promise<Record<string, number>> {
    const model = benchModel();
    if (!model) throw new BenchSkipped("no model (set SPADE_BENCH_MODEL to a GGUF file)");
    const checkStart = performance.now();
    await checkModelFile(model);
    const ggufCheckMs = performance.now() - checkStart;
    const rawTokensPerSec1 = await measureRawTokensPerSec(model, { tokens, sequences: 1 });
    const rawTokensPerSec2 = await measureRawTokensPerSec(model, { tokens, sequences: 2 });
    const backendTokensPerSec2 = await backendTokensPerSec(model, 2);
    const prefixReuseSpeedup = (await conversationSeconds(model, false)) / (await conversationSeconds(model, true));
    log(`llm: raw ${rawTokensPerSec1.toFixed(0)} / ${rawTokensPerSec2.toFixed(0)} tok/s (1 / 2 sequences), backend ${backendTokensPerSec2.toFixed(0)} tok/s, prefix reuse x${prefixReuseSpeedup.toFixed(2)}`);
    return {
      rawTokensPerSec1: Math.round(rawTokensPerSec1),
      rawTokensPerSec2: Math.round(rawTokensPerSec2),
      backendTokensPerSec2: Math.round(backendTokensPerSec2),
      prefixReuseSpeedup: Number(prefixReuseSpeedup.toFixed(2)),
      ggufCheckMs: Number(ggufCheckMs.toFixed(2)),
    };
  },
};

async function backendTokensPerSec(model: string, sequences: number): Promise<number> {
  const backend = await LlamaBackend.load({ model, sequences, contextSize: tokens / sequences + 64 });
  try {
    const start = performance.now();
    const results = await Promise.all(
      Array.from({ length: sequences }, (_, seed) =>
        backend.chat({ messages: [{ role: "user", content: "Once upon a time" }], sampling: { seed, maxTokens: tokens / sequences } }),
      ),
    );
    const generated = results.reduce((sum, result) => sum + result.completionTokens, 0);
    return generated / ((performance.now() - start) / 1000);
  } finally {
    await backend.dispose();
  }
}

/** Seconds for a 12-turn conversation with a long system prompt and short replies, as an episode's prompts grow. */
async function conversationSeconds(model: string, reusePrefix: boolean): Promise<number> {
  const backend = await LlamaBackend.load({ model, contextSize: 2048, reusePrefix });
  try {
    const messages: ChatMessage[] = [{ role: "system", content: "You are playing a story game about a little dog and a big red ball. ".repeat(24) }];
    const start = performance.now();
    for (let turn = 0; turn < 12; turn++) {
      messages.push({ role: "user", content: `Turn ${turn}: the little dog found a big red ball in the garden and wanted to play with it.` });
      const reply = await backend.chat({ messages, sampling: { seed: turn, maxTokens: 8 } });
      messages.push({ role: "assistant", content: reply.text });
    }
    return (performance.now() - start) / 1000;
  } finally {
    await backend.dispose();
  }
}
