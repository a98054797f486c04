import type { ChatResult, FinishReason, SamplingOptions, ToolCall } from "../../../shared/llm.js";
import { splitReasoning } from "../../../shared/splitReasoning.js";
import { excerpt } from "./excerpt.js";
import { OpenAiResponseError } from "./OpenAiResponseError.js";

type Json = Record<string, unknown>;

/**
 * Builds one ChatResult from an OpenAI chat completion: a whole body, or streamed chunks added as
 * they arrive (so an aborted stream still yields what came). Anything not shaped as the API
 * specifies is refused with OpenAiResponseError saying what was expected.
 */
export class ChatReply {
  private content = "";
  private reasoningField = "";
  private readonly logprobs: number[] = [];
  /** Completion token ids: vLLM's `token_ids`, else the `token_id:<id>` names of the log-prob entries. */
  private readonly tokenIds: number[] = [];
  private readonly logprobTokenIds: number[] = [];
  /** SGLang's ids from `meta_info.output_token_logprobs`. */
  private readonly metaTokenIds: number[] = [];
  private promptTokenIds: number[] | null = null;
  /** Tool calls by stream index (streamed calls arrive in fragments). */
  private readonly calls: Array<{ id: string; name: string; arguments: string }> = [];
  private finish: string | null = null;
  private promptTokens: number | null = null;
  private completionTokens: number | null = null;

  constructor(
    private readonly url: string,
    private readonly samplingUsed?: SamplingOptions,
  ) {}

  /** Adds one streamed `chat.completion.chunk`. */
  addChunk(chunk: unknown, index: number): void {
    const body = this.object(chunk, `streamed event ${index}`);
    this.refuseError(body);
    this.readUsage(body.usage);
    this.readPromptIds(body.prompt_token_ids);
    if (body.choices === undefined) return;
    if (!Array.isArray(body.choices)) this.fail(`streamed event ${index}: expected "choices" to be an array, got ${describe(body.choices)}`);
    if (body.choices.length === 0) return;
    const choice = this.object(body.choices[0], `streamed event ${index}: choices[0]`);
    const delta = choice.delta === undefined || choice.delta === null ? {} : this.object(choice.delta, `streamed event ${index}: choices[0].delta`);
    this.content += this.text(delta.content, `streamed event ${index}: choices[0].delta.content`);
    this.reasoningField += this.text(delta.reasoning_content ?? delta.reasoning, `streamed event ${index}: choices[0].delta.reasoning_content`);
    this.readToolCalls(delta.tool_calls, `streamed event ${index}: choices[0].delta.tool_calls`, true);
    this.readLogprobs(choice.logprobs, `streamed event ${index}`);
    this.readPromptIds(choice.prompt_token_ids);
    this.readTokenIds(choice.token_ids, `streamed event ${index}: choices[0].token_ids`);
    if (typeof choice.finish_reason === "string") this.finish = choice.finish_reason;
  }

  /** Reads a whole (non-streamed) `chat.completion`. */
  setCompletion(completion: unknown): void {
    const body = this.object(completion, "the response body");
    this.refuseError(body);
    if (!Array.isArray(body.choices) || body.choices.length === 0) this.fail(`expected "choices" to be a non-empty array, got ${describe(body.choices)}`);
    const choice = this.object(body.choices[0], "choices[0]");
    const message = this.object(choice.message, "choices[0].message");
    if (message.content !== null && typeof message.content !== "string") this.fail(`expected choices[0].message.content to be a string, got ${describe(message.content)}`);
    this.content = message.content ?? "";
    this.reasoningField = this.text(message.reasoning_content ?? message.reasoning, "choices[0].message.reasoning_content");
    this.readToolCalls(message.tool_calls, "choices[0].message.tool_calls", false);
    this.readLogprobs(choice.logprobs, "choices[0]");
    this.readPromptIds(body.prompt_token_ids ?? choice.prompt_token_ids);
    this.readTokenIds(choice.token_ids, "choices[0].token_ids");
    this.readMetaInfo(choice.meta_info);
    this.finish = typeof choice.finish_reason === "string" ? choice.finish_reason : "stop";
    this.readUsage(body.usage);
  }

  get finished(): boolean {
    return this.finish !== null;
  }

  result(override?: FinishReason): ChatResult {
    const inline = splitReasoning(this.content);
    const reasoning = [this.reasoningField.trim(), inline.reasoning ?? ""].filter(Boolean).join("\n\n");
    const result: ChatResult = {
      text: inline.text,
      reasoning: reasoning || null,
      finishReason: override ?? (this.finish === "length" ? "length" : "stop"),
      promptTokens: this.promptTokens ?? this.promptTokenIds?.length ?? 0,
      completionTokens: this.completionTokens ?? this.logprobs.length,
    };
    if (this.logprobs.length > 0) {
      result.tokenProbs = this.logprobs.map((logprob) => Math.exp(logprob));
      result.tokenLogprobs = [...this.logprobs];
    }
    const ids =
      this.tokenIds.length > 0 ? this.tokenIds : this.metaTokenIds.length > 0 ? this.metaTokenIds : this.logprobTokenIds.length === this.logprobs.length ? this.logprobTokenIds : [];
    if (ids.length > 0) result.tokenIds = [...ids];
    if (this.promptTokenIds) result.promptTokenIds = [...this.promptTokenIds];
    if (this.samplingUsed) result.samplingUsed = this.samplingUsed;
    const calls = this.calls.filter((call) => call.name);
    if (calls.length > 0) result.toolCalls = calls.map((call, i): ToolCall => ({ id: call.id || `call_${i}`, name: call.name, arguments: call.arguments }));
    return result;
  }

  /** OpenAI `tool_calls`: whole (a message) or in fragments keyed by `index` (a stream). */
  private readToolCalls(value: unknown, where: string, fragments: boolean): void {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) this.fail(`expected ${where} to be an array, got ${describe(value)}`);
    value.forEach((entry, i) => {
      const call = this.object(entry, `${where}[${i}]`);
      const fn = call.function === undefined || call.function === null ? {} : this.object(call.function, `${where}[${i}].function`);
      const slot = fragments && typeof call.index === "number" ? call.index : fragments ? this.calls.length - 1 : this.calls.length;
      const target = (this.calls[Math.max(0, slot)] ??= { id: "", name: "", arguments: "" });
      if (typeof call.id === "string" && call.id) target.id = call.id;
      target.name += this.text(fn.name, `${where}[${i}].function.name`);
      target.arguments += this.text(fn.arguments, `${where}[${i}].function.arguments`);
    });
  }

  private readTokenIds(value: unknown, where: string): void {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value) || !value.every((id) => Number.isInteger(id))) this.fail(`expected ${where} to be an array of integers, got ${describe(value)}`);
    this.tokenIds.push(...(value as number[]));
  }

  /**
   * SGLang's `meta_info` (with `return_meta_info`): `output_token_logprobs` is one
   * `[logprob, token_id, text]` per generated token (sglang tokenizer_manager.py
   * `detokenize_logprob_tokens`), the ids of a chat API that has no `return_token_ids`.
   */
  private readMetaInfo(value: unknown): void {
    if (value === undefined || value === null || this.tokenIds.length > 0) return;
    const entries = this.object(value, "choices[0].meta_info").output_token_logprobs;
    if (entries === undefined || entries === null) return;
    if (!Array.isArray(entries) || !entries.every((entry) => Array.isArray(entry) && Number.isInteger(entry[1]))) {
      this.fail(`expected choices[0].meta_info.output_token_logprobs to be [logprob, token_id, text] entries, got ${describe(entries)}`);
    }
    this.metaTokenIds.push(...(entries as unknown[][]).map((entry) => entry[1] as number));
  }

  private readPromptIds(value: unknown): void {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value) || !value.every((id) => Number.isInteger(id))) this.fail(`expected prompt_token_ids to be an array of integers, got ${describe(value)}`);
    this.promptTokenIds = value as number[];
  }

  private readLogprobs(logprobs: unknown, where: string): void {
    if (logprobs === undefined || logprobs === null) return;
    const content = this.object(logprobs, `${where}.logprobs`).content;
    if (content === undefined || content === null) return;
    if (!Array.isArray(content)) this.fail(`expected ${where}.logprobs.content to be an array, got ${describe(content)}`);
    content.forEach((entry, i) => {
      const { logprob, token } = this.object(entry, `${where}.logprobs.content[${i}]`);
      if (typeof logprob !== "number") this.fail(`expected ${where}.logprobs.content[${i}].logprob to be a number, got ${describe(logprob)}`);
      this.logprobs.push(logprob);
      // vLLM with return_tokens_as_token_ids names each token `token_id:<id>`.
      const id = typeof token === "string" ? /^token_id:(\d+)$/.exec(token) : null;
      if (id) this.logprobTokenIds.push(Number(id[1]));
    });
  }

  private readUsage(usage: unknown): void {
    if (usage === undefined || usage === null) return;
    const { prompt_tokens: prompt, completion_tokens: completion } = this.object(usage, "usage");
    if (typeof prompt === "number") this.promptTokens = prompt;
    if (typeof completion === "number") this.completionTokens = completion;
  }

  private refuseError(body: Json): void {
    if (body.error !== undefined && body.error !== null) this.fail(`the server sent an error: ${excerpt(JSON.stringify(body.error))}`);
  }

  private text(value: unknown, what: string): string {
    if (value === undefined || value === null) return "";
    if (typeof value !== "string") this.fail(`expected ${what} to be a string, got ${describe(value)}`);
    return value;
  }

  private object(value: unknown, what: string): Json {
    if (typeof value !== "object" || value === null || Array.isArray(value)) this.fail(`expected ${what} to be an object, got ${describe(value)}`);
    return value as Json;
  }

  private fail(problem: string): never {
    throw new OpenAiResponseError(this.url, problem);
  }
}

function describe(value: unknown): string {
  return value === undefined ? "nothing" : excerpt(JSON.stringify(value) ?? String(value), 80);
}
