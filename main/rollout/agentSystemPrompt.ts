import type { ToolSchema } from "../../shared/environment.js";
import { loadPrompt, renderTemplate } from "../util/renderTemplate.js";

/**
 * The workbench protocol's system prompt: `\boxed{action}` per turn, or tool calls written as text
 * for tool-use environments. The reference protocol has no system prompt (see `frameFirstObservation`).
 */
export function agentSystemPrompt(kind: "text" | "tool", tools: ToolSchema[] | null): string {
  if (kind === "text") return loadPrompt("agent-text.md");
  return renderTemplate(loadPrompt("agent-tool.md"), { tools: JSON.stringify(tools ?? [], null, 2) });
}

/** The reference protocol's first user message of a game: the framing, the observation, the instruction to reason and box the answer. */
export function frameFirstObservation(observation: string): string {
  return renderTemplate(loadPrompt("agent-first-turn.md"), { observation });
}
