import type { ChatMessage } from "../../../shared/llm.js";
import type { ReadonlyDb, WritableDb } from "../DatabaseHandle.js";
import { fromJson, toJson } from "../json.js";
import { statement } from "../statement.js";

/** Where a hint came from: the environment's own `hint()`, the hint-writer model, an imported set, or a user's edit. */
export type HintSource = "env" | "writer" | "import" | "edit";

export interface Hint {
  id: number;
  environmentId: number;
  source: HintSource;
  text: string;
  /** The hint writer's prompt (writer hints only). */
  prompt: ChatMessage[] | null;
  rawReply: string | null;
  /** The adapter the hint writer was sampled with (writer hints; null: the base model). */
  adapter: string | null;
  createdAt: number;
}

export type NewHint = Pick<Hint, "environmentId" | "source" | "text"> & Partial<Pick<Hint, "prompt" | "rawReply" | "adapter">>;

interface HintRow {
  id: number;
  environment_id: number;
  source: HintSource;
  text: string;
  prompt: string | null;
  raw_reply: string | null;
  adapter: string | null;
  created_at: number;
}

/**
 * Stores the environment's hint and returns its id. An environment has one hint: storing another
 * replaces it (a user's edit), keeping the id.
 */
export function insertHint(db: WritableDb, hint: NewHint): number {
  const row = statement(
    db,
    `INSERT INTO hints (environment_id, source, text, prompt, raw_reply, adapter, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (environment_id) DO UPDATE SET source = excluded.source, text = excluded.text, prompt = excluded.prompt,
       raw_reply = excluded.raw_reply, adapter = excluded.adapter, created_at = excluded.created_at
     RETURNING id`,
  ).get(hint.environmentId, hint.source, hint.text, toJson(hint.prompt), hint.rawReply ?? null, hint.adapter ?? null, Date.now()) as { id: number };
  return row.id;
}

/** The environment's hint, or null when it has none yet. */
export function getHint(db: ReadonlyDb, environmentId: number): Hint | null {
  const row = statement(db, `SELECT * FROM hints WHERE environment_id = ?`).get(environmentId) as HintRow | undefined;
  if (!row) return null;
  return {
    id: row.id,
    environmentId: row.environment_id,
    source: row.source,
    text: row.text,
    prompt: fromJson<ChatMessage[]>(row.prompt, "hints.prompt"),
    rawReply: row.raw_reply,
    adapter: row.adapter ?? null,
    createdAt: row.created_at,
  };
}
