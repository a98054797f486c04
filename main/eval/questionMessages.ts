import type { ChatMessage } from "../../shared/llm.js";
import type { QuestionItem } from "./QuestionItem.js";

/** The prompt of one held-out question: the question, the choices if any, and where to put the answer. */
export function questionMessages(item: QuestionItem): ChatMessage[] {
  if (item.messages) return item.messages;
  if (item.kind === "choice") {
    const choices = (item.choices ?? []).map((choice, i) => `${String.fromCharCode(65 + i)}. ${choice}`).join("\n");
    return [{ role: "user", content: `${item.question}\n\n${choices}\n\nThink it through, then give the letter of the correct choice in \\boxed{}, for example \\boxed{A}.` }];
  }
  return [{ role: "user", content: `${item.question}\n\nThink it through, then put your final answer in \\boxed{}.` }];
}
