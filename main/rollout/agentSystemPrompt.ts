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

/**
 * The reference protocol's first user message: for a game the framing, the observation, the
 * instruction to reason and box the answer; for a library's problem (RLVE) the problem itself and
 * the same instruction, as the reference's fixed-environment template does.
 */
export function frameFirstObservation(observation: string, framing: "game" | "problem" = "game"): string {
  return renderTemplate(loadPrompt(framing === "problem" ? "agent-first-turn-problem.md" : "agent-first-turn.md"), { observation });
}
