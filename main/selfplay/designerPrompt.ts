import type { ChatMessage } from "../../shared/llm.js";
import { loadPrompt, renderTemplate } from "../util/renderTemplate.js";
import type { MemorySelection } from "./selectMemoryReferences.js";

export interface DesignerPromptInput {
  /** The grounding document (already truncated), or null for the "no corpus" ablation. */
  document: string | null;
  memory: MemorySelection | null;
  skill: string;
  difficulty: string;
}

/** The designer's first message: grounding document, memory references, negative example, skill. */
export function designerMessages(input: DesignerPromptInput): ChatMessage[] {
  const document = input.document === null
    ? ""
    : `Ground the environment in a concept or technique from this reference document. Use the idea; never cite or mention the document.\n\n<REFERENCE_DOCUMENT>\n${input.document}\n</REFERENCE_DOCUMENT>\n\n`;
  return [{ role: "user", content: renderTemplate(loadPrompt("designer.md"), { document, memory: memoryBlock(input.memory), skill: input.skill, difficulty: input.difficulty }) }];
}

function memoryBlock(memory: MemorySelection | null): string {
  if (!memory || (memory.references.length === 0 && !memory.negative)) return "";
  const parts: string[] = [];
  if (memory.references.length > 0) {
    parts.push("Reference environments that challenged the agent well (create a DIFFERENT one, not a variation):");
    for (const ref of memory.references) {
      parts.push(`<REFERENCE_ENVIRONMENT name="${ref.className ?? "unnamed"}" winRate="${ref.winRate.toFixed(2)}" regret="${ref.regret.toFixed(2)}">\n${ref.codeExcerpt}\n</REFERENCE_ENVIRONMENT>`);
    }
  }
  if (memory.negative) {
    const { entry, reason } = memory.negative;
    parts.push(`Do not write anything like ${entry.className ?? "environment #" + entry.environmentId}: it was ${reason} (win rate ${entry.winRate.toFixed(2)}).`);
  }
  return parts.join("\n\n") + "\n\n";
}

/** The repair turn: the failing reply stays in the chat and the validator's error follows it. */
export function repairMessages(previous: ChatMessage[], rawReply: string, error: string): ChatMessage[] {
  return [...previous, { role: "assistant", content: rawReply }, { role: "user", content: renderTemplate(loadPrompt("designer-repair.md"), { error }) }];
}
