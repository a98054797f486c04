import type { ToolSchema } from "../../shared/environment.js";
import { loadPrompt, renderTemplate } from "../util/renderTemplate.js";

/** The protocol the agent is told: `\boxed{action}` per turn, or tool calls for tool-use environments. */
export function agentSystemPrompt(kind: "text" | "tool", tools: ToolSchema[] | null): string {
  if (kind === "text") return loadPrompt("agent-text.md");
  return renderTemplate(loadPrompt("agent-tool.md"), { tools: JSON.stringify(tools ?? [], null, 2) });
}
