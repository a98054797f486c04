import { stat } from "node:fs/promises";
import { basename } from "node:path";
import type { ChatWrapper, Llama, LlamaEmbeddingContext, LlamaModel, Tokenizer } from "node-llama-cpp";
import type { LoraSpec } from "../../../shared/backendConfig.js";
import type { ChatMessage, ChatResult, ThinkingMode, ToolSpec } from "../../../shared/llm.js";
import { splitReasoning } from "../../../shared/splitReasoning.js";
import { AdapterMismatchError } from "../gguf/AdapterMismatchError.js";
import { checkAdapterFile } from "../gguf/checkAdapterFile.js";
import { checkModelFile } from "../gguf/checkModelFile.js";
import type { GgufInfo } from "../gguf/GgufInfo.js";
import type { ChatRequest, LlmBackend } from "../LlmBackend.js";
import { PromptTooLongError } from "../PromptTooLongError.js";
import { generateOnSequence } from "./generateOnSequence.js";
import type { LlamaBackendOptions } from "./LlamaBackendOptions.js";
import { LlamaBackendStateError } from "./LlamaBackendStateError.js";
import { loadLlamaRuntime } from "./loadLlamaRuntime.js";
import { parseToolCalls } from "./parseToolCalls.js";
import { createCachingTokenizer } from "./createCachingTokenizer.js";
import { renderChatPrompt } from "./renderChatPrompt.js";
import { resolveModelSource } from "./resolveModelSource.js";
import { resolvePinnedChatWrapper } from "./resolvePinnedChatWrapper.js";
import { SequencePool } from "./SequencePool.js";

const defaultContextSize = 4096;

interface Loaded {
  model: LlamaModel;
  /** The model's tokenizer with a memo of recent pieces (a conversation's earlier turns tokenise once). */
  tokenizer: Tokenizer;
  /** The model's chat wrapper per thinking mode, resolved once each. */
  wrappers: Map<ThinkingMode, ChatWrapper>;
  pool: SequencePool;
  embedding: Promise<LlamaEmbeddingContext> | null;
  /** Adapter files as first loaded (node-llama-cpp caches adapters by path for the model's lifetime). */
  adapterStamps: Map<string, string>;
}

/**
 * A local GGUF model through node-llama-cpp: `sequences` parallel sequences in one context decode
 * in one batch (each sequence's size chosen by node-llama-cpp unless `contextSize` is a number),
 * each call renders the messages, tools and thinking mode with the model's own chat template
 * (pinned: no date, see resolvePinnedChatWrapper), and a sequence reuses its cached prefix across
 * the turns of an episode, so a turn evaluates only its new tokens. Every result is token-exact:
 * the prompt ids as evaluated, the sampled ids, their log-probs under the sampling distribution.
 * Model and adapter files are checked before llama.cpp sees them.
 */
export class LlamaBackend implements LlmBackend {
  readonly name: string;
  readonly parallelism: number;
  private state: "ready" | "unloaded" | "disposed" = "ready";
  private loaded: Loaded | null = null;
  private lora: LoraSpec[];
  private readonly retiring = new Set<Promise<void>>();
  private readonly disposal = new AbortController();
  private embedQueue: Promise<unknown> = Promise.resolve();
  /**
   * The size node-llama-cpp chose for the first context, kept for later ones (new adapters,
   * reload): sized again while the old context still holds its memory, "auto" would shrink.
   */
  private resolvedContextSize: number | null = null;

  private constructor(
    private readonly llama: Llama,
    /** The local GGUF file (a URI resolves to its downloaded copy). */
    readonly modelPath: string,
    /** The checked header of the model file. */
    readonly modelInfo: GgufInfo,
    private readonly options: LlamaBackendOptions,
  ) {
    this.name = `llama:${basename(modelPath)}`;
    this.parallelism = options.sequences ?? 1;
    this.lora = options.lora ?? [];
  }

  static async load(options: LlamaBackendOptions): Promise<LlamaBackend> {
    const modelPath = await resolveModelSource(options.model, options);
    const info = await checkModelFile(modelPath);
    for (const adapter of options.lora ?? []) await checkAdapterFile(adapter.path, info);
    const llama = await loadLlamaRuntime(options);
    const backend = new LlamaBackend(llama, modelPath, info, options);
    try {
      backend.loaded = await backend.loadModel();
    } catch (error) {
      await llama.dispose();
      throw error;
    }
    return backend;
  }

  /** `basename[@scale]` of each adapter in use, joined by "+", or null without adapters. */
  get adapter(): string | null {
    if (this.lora.length === 0) return null;
    return this.lora.map(({ path, scale = 1 }) => basename(path) + (scale === 1 ? "" : `@${scale}`)).join("+");
  }

  /** The accelerator llama.cpp resolved (`gpu: "auto"` included): "cuda", "metal", "vulkan", or false on the CPU. */
  get gpu(): "cuda" | "metal" | "vulkan" | false {
    return this.llama.gpu;
  }

  /** CPU threads shared by this backend's contexts. */
  get threads(): number {
    return this.llama.maxThreads;
  }

  /** Tokens each sequence holds (chosen by node-llama-cpp from the model and the machine unless `contextSize` is a number). */
  get contextSize(): number {
    return this.ready().pool.context.contextSize;
  }

  /** The context length the model was trained on, from its GGUF metadata. */
  get trainedContextSize(): number {
    return this.ready().model.trainContextSize;
  }

  /**
   * How the context is laid out, for the CLI and logs: e.g.
   * `2 sequences x 512 tokens in one context (batch 512), cpu, 1 thread`.
   */
  get layout(): string {
    const { context } = this.ready().pool;
    const sequences = context.totalSequences;
    const gpu = this.llama.gpu === false ? "cpu" : this.llama.gpu;
    const threads = this.llama.maxThreads;
    return `${sequences} sequence${sequences === 1 ? "" : "s"} x ${context.contextSize} tokens in one context (batch ${context.batchSize}), ${gpu}, ${threads} thread${threads === 1 ? "" : "s"}`;
  }

  /** Tokens of `messages` as rendered for this model (with `tools` and `thinking` as a call would send them). */
  async countTokens(messages: ChatMessage[], options: { tools?: ToolSpec[]; thinking?: ThinkingMode } = {}): Promise<number> {
    const loaded = this.ready();
    return renderChatPrompt(loaded.model, this.wrapperFor(loaded, options.thinking), messages, options.tools, loaded.tokenizer).tokens.length;
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    const loaded = this.ready();
    const { model, pool } = loaded;
    const prompt = renderChatPrompt(model, this.wrapperFor(loaded, request.thinking), request.messages, request.tools, loaded.tokenizer);
    // Refused before any waiting or evaluation: the loop records it and goes on.
    if (prompt.tokens.length >= pool.context.contextSize) throw new PromptTooLongError(prompt.tokens.length, pool.context.contextSize, model.trainContextSize);
    // A signal per call: waiters listen on it, and thousands of them must not pile up on one shared signal.
    const signal = AbortSignal.any(request.signal ? [request.signal, this.disposal.signal] : [this.disposal.signal]);
    const base = { promptTokens: prompt.tokens.length, promptTokenIds: prompt.tokens };
    const sequence = await pool.acquire(prompt.tokens, signal, request.priority);
    if (!sequence) return { text: "", reasoning: null, finishReason: "abort", completionTokens: 0, tokenIds: [], tokenProbs: [], tokenLogprobs: [], ...base };
    let generation;
    try {
      generation = await generateOnSequence(sequence, prompt, request.sampling ?? {}, signal, this.options.reusePrefix ?? true);
    } finally {
      pool.release(sequence);
    }
    // Reasoning and tool calls are read from the text with special tokens spelled out; a reply with neither is the plain text.
    // Call ids are deterministic and unique within a conversation: the prompt length grows every turn.
    const split = splitReasoning(generation.rawText);
    const parsed = prompt.toolSyntax ? parseToolCalls(split.text, prompt.toolSyntax, `call_${prompt.tokens.length}`) : null;
    const marked = split.reasoning !== null || (parsed !== null && parsed.calls.length > 0);
    const text = !marked ? generation.plainText : parsed && parsed.calls.length > 0 ? parsed.text : split.text;
    const result: ChatResult = {
      text,
      reasoning: split.reasoning,
      finishReason: generation.finishReason,
      completionTokens: generation.tokenIds.length,
      tokenIds: generation.tokenIds,
      tokenProbs: generation.tokenProbs,
      tokenLogprobs: generation.tokenLogprobs,
      samplingUsed: generation.samplingUsed,
      ...base,
    };
    if (parsed && parsed.calls.length > 0) result.toolCalls = parsed.calls;
    return result;
  }

  private wrapperFor(loaded: Loaded, thinking: ThinkingMode = "auto"): ChatWrapper {
    let wrapper = loaded.wrappers.get(thinking);
    if (!wrapper) {
      wrapper = resolvePinnedChatWrapper(loaded.model, { thinking, toolInstructions: this.options.toolInstructions });
      loaded.wrappers.set(thinking, wrapper);
    }
    return wrapper;
  }

  /**
   * Switches adapters: a new context is created with them (llama.cpp applies LoRA only at context
   * creation); calls already running finish on the old context, which is then disposed.
   */
  async setAdapters(lora: LoraSpec[]): Promise<void> {
    const loaded = this.ready();
    for (const adapter of lora) await checkAdapterFile(adapter.path, this.modelInfo);
    const pool = await this.createPool(loaded.model, lora, loaded.adapterStamps);
    const old = loaded.pool;
    loaded.pool = pool;
    this.lora = lora;
    this.retire(old);
  }

  /** Uses the adapter at `path` alone for later calls (as `setAdapters([{ path }])`; the name is the file's). */
  async loadAdapter(path: string, _name?: string): Promise<void> {
    await this.setAdapters([{ path }]);
  }

  async embed(text: string): Promise<number[]> {
    const loaded = this.ready();
    loaded.embedding ??= loaded.model.createEmbeddingContext({ contextSize: Math.min(loaded.model.trainContextSize, defaultContextSize) });
    const context = await loaded.embedding;
    const result = this.embedQueue.then(() => context.getEmbeddingFor(text));
    this.embedQueue = result.catch(() => undefined);
    return [...(await result).vector];
  }

  /** Frees the model from (GPU) memory after running calls finish, e.g. while a trainer needs the GPU. */
  async unload(): Promise<void> {
    const loaded = this.ready();
    this.state = "unloaded";
    this.loaded = null;
    await this.release(loaded);
  }

  /** Loads the model again after `unload()`, with `lora` when given (checked first: one load, not a load and a switch), else the adapters in use before. */
  async reload(lora?: LoraSpec[]): Promise<void> {
    if (this.state !== "unloaded") throw new LlamaBackendStateError(`${this.name}: reload() needs an unloaded backend, but it is ${this.state}`);
    if (lora) {
      for (const adapter of lora) await checkAdapterFile(adapter.path, this.modelInfo);
      this.lora = lora;
    }
    this.loaded = await this.loadModel();
    this.state = "ready";
  }

  /** Aborts running calls (they return finishReason "abort") and frees everything. */
  async dispose(): Promise<void> {
    if (this.state === "disposed") return;
    const loaded = this.loaded;
    this.state = "disposed";
    this.loaded = null;
    this.disposal.abort();
    if (loaded) await this.release(loaded);
    await Promise.all(this.retiring);
    await this.llama.dispose();
  }

  private ready(): Loaded {
    if (this.state !== "ready" || !this.loaded) {
      const hint = this.state === "unloaded" ? "; call reload() first" : "";
      throw new LlamaBackendStateError(`${this.name} is ${this.state}${hint}`);
    }
    return this.loaded;
  }

  private async loadModel(): Promise<Loaded> {
    const model = await this.llama.loadModel({ modelPath: this.modelPath });
    try {
      const adapterStamps = new Map<string, string>();
      const pool = await this.createPool(model, this.lora, adapterStamps);
      return { model, tokenizer: createCachingTokenizer(model.tokenizer), wrappers: new Map(), pool, embedding: null, adapterStamps };
    } catch (error) {
      await model.dispose();
      throw error;
    }
  }

  private async createPool(model: LlamaModel, lora: LoraSpec[], stamps: Map<string, string>): Promise<SequencePool> {
    for (const { path } of lora) {
      const { mtimeMs, size } = await stat(path);
      const stamp = `${mtimeMs}:${size}`;
      const seen = stamps.get(path);
      if (seen !== undefined && seen !== stamp) {
        throw new AdapterMismatchError(path, "the file changed since this model first loaded it, and llama.cpp caches adapters by path: write each adapter version to a new file name");
      }
      stamps.set(path, stamp);
    }
    const context = await model.createContext({
      sequences: this.parallelism,
      contextSize: this.resolvedContextSize ?? this.options.contextSize ?? "auto",
      batchSize: this.options.batchSize,
      flashAttention: this.options.flashAttention,
      lora: lora.length > 0 ? { adapters: lora.map(({ path, scale }) => ({ filePath: path, scale: scale ?? 1 })) } : undefined,
    });
    this.resolvedContextSize ??= context.contextSize;
    return new SequencePool(context);
  }

  private retire(pool: SequencePool): void {
    const done = pool.idle().then(() => pool.dispose());
    this.retiring.add(done);
    void done.finally(() => this.retiring.delete(done));
  }

  private async release(loaded: Loaded): Promise<void> {
    await loaded.pool.idle();
    await Promise.all(this.retiring);
    await loaded.pool.dispose();
    if (loaded.embedding) await (await loaded.embedding).dispose();
    await loaded.model.dispose();
  }
}
