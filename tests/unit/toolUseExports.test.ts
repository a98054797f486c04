// Tool-use plays in the training exports: OpenAI messages (`tools`, `tool_calls`, `role: "tool"`),
// every row checked against the OpenAI chat-message schema, TRL's rows against TRL's.
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { upsertEnvStats } from "../../main/store/queries/envStats.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { getEpisode, insertEpisodeWithTurns, type NewTurn } from "../../main/store/queries/episodes.js";
import { createRun } from "../../main/store/queries/runs.js";
import { listPlayedEnvironments } from "../../main/store/queries/trainingQueries.js";
import { buildArtGroups } from "../../main/training/buildArtGroups.js";
import { buildGrpoGroups } from "../../main/training/buildGrpoGroups.js";
import { buildKtoLines } from "../../main/training/buildKtoLines.js";
import { buildSftLines } from "../../main/training/buildSftLines.js";
import { loadPlayGroup } from "../../main/training/loadPlayGroup.js";
import type { StoredPlayGroup } from "../../main/training/StoredPlayGroup.js";
import type { ToolSpec } from "../../shared/llm.js";

// The OpenAI chat-completions message and tool schemas (platform.openai.com API reference), strict:
// a field of another spelling (`toolCalls`, `toolCallId`) is an error.
const jsonObjectText = z.string().refine((text) => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}, "arguments must be a JSON object as text");
const toolCallSchema = z.strictObject({ id: z.string().min(1), type: z.literal("function"), function: z.strictObject({ name: z.string().min(1), arguments: jsonObjectText }) });
const messageSchema = z.discriminatedUnion("role", [
  z.strictObject({ role: z.literal("system"), content: z.string() }),
  z.strictObject({ role: z.literal("user"), content: z.string() }),
  z.strictObject({ role: z.literal("assistant"), content: z.string().nullable(), tool_calls: z.array(toolCallSchema).min(1).optional() }),
  z.strictObject({ role: z.literal("tool"), content: z.string(), tool_call_id: z.string().min(1) }),
]);
// TRL's conversational datasets (docs/source/dataset_formats.md, "Tool Calling"): the same, but a
// call's arguments are an object (its chat templates render them with `tojson`, qwen2_5.jinja, or
// iterate them with `items`, llama3_1.jinja) and a tool message names its tool.
const trlToolCallSchema = z.strictObject({ id: z.string().min(1), type: z.literal("function"), function: z.strictObject({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }) });
const trlMessageSchema = z.discriminatedUnion("role", [
  z.strictObject({ role: z.literal("system"), content: z.string() }),
  z.strictObject({ role: z.literal("user"), content: z.string() }),
  z.strictObject({ role: z.literal("assistant"), content: z.string().nullable(), tool_calls: z.array(trlToolCallSchema).min(1).optional() }),
  z.strictObject({ role: z.literal("tool"), content: z.string(), tool_call_id: z.string().min(1), name: z.string().min(1) }),
]);
const toolSchema = z.strictObject({ type: z.literal("function"), function: z.strictObject({ name: z.string().min(1), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()) }) });

/** A conversation is valid when every message fits the schema and every tool message answers an earlier call. */
function checkConversation(messages: unknown[], schema: typeof messageSchema | typeof trlMessageSchema = messageSchema): void {
  const calls = new Set<string>();
  for (const message of messages) {
    const parsed = schema.parse(message);
    if (parsed.role === "assistant") for (const call of parsed.tool_calls ?? []) calls.add(call.id);
    if (parsed.role === "tool") expect(calls.has(parsed.tool_call_id), `tool message answers ${parsed.tool_call_id}`).toBe(true);
  }
}

const tools: ToolSpec[] = [{ name: "lookup", description: "Look a key up", parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] } }];

/** A native tool-use play: a lookup (its output "x=4"), then an answer rewarded `ret`. */
function toolPlay(ret: number): NewTurn[] {
  return [
    {
      messages: [{ role: "user", content: "Find x." }],
      rawReply: '<tool_call>{"name": "lookup", "arguments": {"key": "x"}}</tool_call>',
      reasoning: null,
      action: '<tool_call>{"name":"lookup","arguments":{"key":"x"}}</tool_call>',
      observation: "x=4",
      reward: 0,
      terminated: false,
      info: { tool: "lookup", toolCalls: [{ id: "call_0_0", name: "lookup", arguments: '{"key":"x"}', result: "x=4" }] },
      tokenIds: [11, 12],
      tokenProbs: [0.5, 0.5],
      promptTokenIds: [1, 2, 3],
    },
    {
      // As the agent loop records it: the full prompt, the call and its output in the workbench's own fields.
      messages: [
        { role: "user", content: "Find x." },
        { role: "assistant", content: '<tool_call>{"name": "lookup", "arguments": {"key": "x"}}</tool_call>', toolCalls: [{ id: "call_0_0", name: "lookup", arguments: '{"key":"x"}' }] },
        { role: "tool", content: "x=4", toolCallId: "call_0_0" },
      ],
      rawReply: `<answer>${ret === 1 ? 4 : 5}</answer>`, reasoning: null, action: "<answer>", observation: "Correct.", reward: ret, terminated: true, info: {}, tokenIds: [13], tokenProbs: [0.25] },
  ];
}

let db: WritableDb;
let groups: StoredPlayGroup[];
let episodeId = 0;

beforeAll(() => {
  db = openDatabase(":memory:");
  const run = createRun(db, { name: "tools", seed: 1 });
  const env = insertEnvironment(db, { runId: run.id, iteration: 0, slot: 0, attempt: 0, source: "designer", skill: "Tool Selection", code: "class TEnv(ToolUseBaseEnv): pass", className: "TEnv", valid: true });
  upsertEnvStats(db, { environmentId: env, plays: 2, hintPlays: 0, designerReward: 0.5, rewardKind: "blend" });
  [1, 0].forEach((ret, playIndex) => {
    episodeId = insertEpisodeWithTurns(db, { runId: run.id, environmentId: env, hinted: false, playIndex, seed: playIndex, return: ret, firstObservation: "Find x.", tools }, toolPlay(ret));
  });
  groups = listPlayedEnvironments(db, run.id).map((played) => loadPlayGroup(db, played));
});

describe("tool-use plays in the training exports", () => {
  it("the store keeps the tools a play offered", () => {
    expect(getEpisode(db, episodeId)?.tools).toEqual(tools);
  });

  it("trl-sft: TRL's messages with tool_calls (arguments an object), the output as a tool message, and the tools", () => {
    const [line] = buildSftLines(groups).lines;
    checkConversation(line!.messages, trlMessageSchema);
    expect(line!.messages).toEqual([
      { role: "user", content: "Find x." },
      { role: "assistant", content: '<tool_call>{"name": "lookup", "arguments": {"key": "x"}}</tool_call>', tool_calls: [{ id: "call_0_0", type: "function", function: { name: "lookup", arguments: { key: "x" } } }] },
      { role: "tool", content: "x=4", tool_call_id: "call_0_0", name: "lookup" },
      { role: "assistant", content: "<answer>4</answer>" },
    ]);
    expect(line!.tools).toEqual([{ type: "function", function: { name: "lookup", description: "Look a key up", parameters: tools[0]!.parameters } }]);
    for (const tool of line!.tools!) toolSchema.parse(tool);
  });

  it("trl-kto: each turn's prompt as the model saw it, in TRL's format", () => {
    const { lines } = buildKtoLines(groups);
    expect(lines).toHaveLength(4);
    for (const line of lines) {
      checkConversation([...line.prompt, ...line.completion], trlMessageSchema);
      expect(line.tools).toHaveLength(1);
    }
    expect(lines[1]!.prompt.at(-1)).toEqual({ role: "tool", content: "x=4", tool_call_id: "call_0_0", name: "lookup" });
    expect(lines[0]!.completion[0]!.tool_calls![0]!.function.arguments).toEqual({ key: "x" });
  });

  it("grpo: the conversation in the OpenAI format with the tools", () => {
    const [group] = buildGrpoGroups(groups).lines;
    for (const play of group!.plays) {
      checkConversation(play.messages);
      expect(play.tools).toHaveLength(1);
    }
  });

  it("art: choices carry tool_calls, token_ids and prompt_token_ids; tool outputs are tool messages; the trajectory has the tools", () => {
    const [group] = buildArtGroups(groups).lines;
    const trajectory = group!.trajectories[0]!;
    expect(trajectory.tools).toHaveLength(1);
    const choices = trajectory.messages_and_choices.filter((item) => "finish_reason" in item);
    const messages = trajectory.messages_and_choices.map((item) => ("finish_reason" in item ? item.message : item));
    checkConversation(messages);
    expect(choices[0]).toMatchObject({ finish_reason: "tool_calls", token_ids: [11, 12], prompt_token_ids: [1, 2, 3] });
    expect(choices[1]).toMatchObject({ finish_reason: "stop", token_ids: [13] });
    expect("prompt_token_ids" in choices[1]!).toBe(false);
  });
});
