import type { ChatResult, SamplingOptions } from "../../../shared/llm.js";
import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { fromJson, toJson } from "../json.js";
import { decodeFloat64, decodeInt32, encodeFloat64, encodeInt32 } from "../numberBlobs.js";
import { statement } from "../statement.js";

/**
 * What one model call actually sampled, token for token: the prompt as evaluated, the completion,
 * each sampled token's log-prob under the distribution it was sampled from, and the sampling
 * settings. Any field is null where the backend could not give it (e.g. a server without token ids).
 */
export interface SampledTokens {
  promptTokenIds: number[] | null;
  tokenIds: number[] | null;
  tokenLogprobs: number[] | null;
  sampling: SamplingOptions | null;
}

/** The tables whose rows are one model call each (a designer attempt, a written hint). */
export type SampledTable = "environments" | "hints";

/** The token record of a chat result (what the loop stores with a designer attempt). */
export function sampledTokensOf(result: Pick<ChatResult, "promptTokenIds" | "tokenIds" | "tokenLogprobs" | "samplingUsed">): SampledTokens {
  return {
    promptTokenIds: result.promptTokenIds ?? null,
    tokenIds: result.tokenIds ?? null,
    tokenLogprobs: result.tokenLogprobs ?? null,
    sampling: result.samplingUsed ?? null,
  };
}

/** Stores the token record of one designer attempt or hint row (call it in the row's insert transaction). */
export function setSampledTokens(db: WritableDb, table: SampledTable, id: number, tokens: SampledTokens): void {
  statement(db, `UPDATE ${table} SET prompt_token_ids = ?, token_ids = ?, token_logprobs = ?, sampling = ? WHERE id = ?`).run(
    encodeInt32(tokens.promptTokenIds),
    encodeInt32(tokens.tokenIds),
    encodeFloat64(tokens.tokenLogprobs),
    toJson(tokens.sampling),
    id,
  );
}

interface SampledRow {
  prompt_token_ids: Buffer | null;
  token_ids: Buffer | null;
  token_logprobs: Buffer | null;
  sampling: string | null;
}

/** The token record of a row, or null when the row does not exist. */
export function getSampledTokens(db: ReadonlyDb, table: SampledTable, id: number): SampledTokens | null {
  const row = statement(db, `SELECT prompt_token_ids, token_ids, token_logprobs, sampling FROM ${table} WHERE id = ?`).get(id) as SampledRow | undefined;
  if (!row) return null;
  return {
    promptTokenIds: decodeInt32(row.prompt_token_ids, `${table}.prompt_token_ids`),
    tokenIds: decodeInt32(row.token_ids, `${table}.token_ids`),
    tokenLogprobs: decodeFloat64(row.token_logprobs, `${table}.token_logprobs`),
    sampling: fromJson<SamplingOptions>(row.sampling, `${table}.sampling`),
  };
}
