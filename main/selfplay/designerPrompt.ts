import type { ChatMessage } from "../../shared/llm.js";
import { findSkill } from "../../shared/skills.js";
import { loadPrompt, renderTemplate } from "../util/renderTemplate.js";
import type { MemoryCandidate, MemorySelection } from "./selectMemoryReferences.js";
import { toolUseDomains, toolUseSkillCategory, toolUseTaskTypeRotation, toolUseTaskTypeText } from "./toolUsePromptParts.js";

/** Which environments the Designer writes: text games (`\boxed{}` actions) or tool-use tasks. */
export type DesignerSetting = "games" | "toolUse";

export interface DesignerPromptInput {
  /** The grounding document (already truncated, with its truncation marker), or null for the "no corpus" ablation. */
  document: string | null;
  memory: MemorySelection | null;
  skill: string;
  difficulty: string;
  /** Defaults to "games". */
  setting?: DesignerSetting;
  /**
   * The tool-use prompt: "multiTurn" (user messages revealed one at a time, as the tool-use
   * launcher sets `SPADE_MULTITURN_ENV_GEN=1`) or "singleTask". Defaults to "multiTurn".
   */
  toolUseVariant?: "multiTurn" | "singleTask";
  /** The turn limit the no-corpus games template paces the game for. Defaults to 25 (the launchers' max turns). */
  maxTurns?: number;
  /** Draws the concept ideas, the tool-use domain and the task type; pass the run's seeded RNG. Defaults to always the first choice. */
  random?: () => number;
  /**
   * "reference": the reference's prompts (system prompt, the corpus or no-corpus template, memory as
   * fenced code). "workbench": this project's earlier single-message prompt. Defaults to "reference".
   */
  style?: "reference" | "workbench";
}

/** The sentence every designer prompt ends with; the scripted backend recognises the role by it. */
export const designerPromptMarker = "Write the whole program in one ```python fenced block.";

/**
 * The Designer's messages for one attempt. Games: the designer system prompt, then the
 * corpus-grounded template (document, interactive contract, skill with its description, steps for
 * the difficulty) or, without a corpus, the separate no-corpus template. Tool use: one user
 * message (the reference sends no system prompt there), multi-turn or single-task. Memory follows
 * as the reference shows it.
 */
export function designerMessages(input: DesignerPromptInput): ChatMessage[] {
  if (input.style === "workbench") return workbenchMessages(input);
  const random = input.random ?? (() => 0);
  const skill = skillLine(input.skill);
  const memory = memoryBlock(input.memory, input.skill);
  if ((input.setting ?? "games") === "toolUse") {
    const body = input.toolUseVariant === "singleTask" ? toolUseSingleTask(input, skill, random) : toolUseMultiTurn(input, skill, random);
    return [{ role: "user", content: body + memory }];
  }
  const body = input.document === null ? gamesWithoutCorpus(input, skill, random) : gamesWithCorpus(input, skill);
  return [
    { role: "system", content: loadPrompt("designer-system.md") },
    { role: "user", content: body + memory },
  ];
}

/** Interaction steps a game must need at a difficulty (the reference: 2 for easy, 3 otherwise). */
export function stepsForDifficulty(difficulty: string): number {
  return difficulty === "easy" ? 2 : 3;
}

function skillLine(name: string): string {
  const description = findSkill(name)?.description;
  return description ? `${name} (${description})` : name;
}

function gamesWithCorpus(input: DesignerPromptInput, skill: string): string {
  return renderTemplate(loadPrompt("designer-games-corpus.md"), {
    document: input.document ?? "",
    skill,
    difficulty: input.difficulty,
    steps: String(stepsForDifficulty(input.difficulty)),
  });
}

function gamesWithoutCorpus(input: DesignerPromptInput, skill: string, random: () => number): string {
  const maxTurns = input.maxTurns ?? 25;
  const examples = sample(findSkill(input.skill)?.examples ?? [], 3, random);
  return renderTemplate(loadPrompt("designer-games-no-corpus.md"), {
    skill,
    skillName: input.skill,
    examples: examples.length > 0 ? examples.map((e) => `  - ${e}`).join("\n") : "  - a game of your own design",
    maxTurns: String(maxTurns),
    pacingLow: String(Math.floor(maxTurns / 2)),
    pacingHigh: String(Math.floor((maxTurns * 3) / 4)),
    answerCheck: loadPrompt("designer-games-answer-check.py"),
    workedExample: loadPrompt("designer-games-worked-example.py"),
  });
}

function toolUseSingleTask(input: DesignerPromptInput, skill: string, random: () => number): string {
  const corpus = input.document === null
    ? ""
    : "Below is a reference document. Build a tool-use environment in the DOMAIN the document describes.\n\n" +
      `<REFERENCE_DOCUMENT>\n${input.document}\n</REFERENCE_DOCUMENT>\n\n` +
      "GROUNDING:\n- The tools and the data belong to the document's domain.\n" +
      "- The game is SELF-CONTAINED: the agent never sees the document.\n- The game text NEVER mentions the document.\n\n";
  const difficulties = JSON.parse(loadPrompt("designer-tool-difficulty.json")) as Record<string, string>;
  return renderTemplate(loadPrompt("designer-tool-single.md"), {
    corpus,
    skill,
    examples: exampleLines(input.skill, 4, random, "tool-calling tasks"),
    difficulty: difficulties[input.difficulty] ?? difficulties.hard!,
  });
}

function toolUseMultiTurn(input: DesignerPromptInput, skill: string, random: () => number): string {
  const examples = exampleLines(input.skill, 4, random, "multi-step workflows");
  const domain = toolUseDomains[Math.floor(random() * toolUseDomains.length)]!;
  const taskType = toolUseTaskTypeRotation[Math.floor(random() * toolUseTaskTypeRotation.length)]!;
  const corpus = input.document === null
    ? ""
    : "OPTIONAL FLAVOUR (you MAY take surface names, numbers or entities from this snippet, but the DOMAIN above stays fixed: do NOT make the task about the snippet, and never mention it in user messages):\n" +
      `<REFERENCE_SNIPPET>\n${input.document}\n</REFERENCE_SNIPPET>\n`;
  return renderTemplate(loadPrompt("designer-tool-multiturn.md"), {
    skill,
    difficulty: input.difficulty,
    domain,
    taskType: toolUseTaskTypeText[taskType],
    skillCategory: toolUseSkillCategory[input.skill] ?? input.skill,
    examples,
    corpus,
  });
}

function exampleLines(skill: string, count: number, random: () => number, fallback: string): string {
  const examples = sample(findSkill(skill)?.examples ?? [], count, random);
  return (examples.length > 0 ? examples : [fallback]).map((e) => `  - ${e}`).join("\n");
}

/** `count` items without replacement (all of them, in order, when there are no more than `count`). */
function sample<T>(items: readonly T[], count: number, random: () => number): T[] {
  if (items.length <= count) return [...items];
  const pool = [...items];
  const chosen: T[] = [];
  while (chosen.length < count) chosen.push(...pool.splice(Math.floor(random() * pool.length), 1));
  return chosen;
}

/**
 * Memory as the reference shows it: up to two reference environments as fenced code, with their
 * skill, win rate and regret, and the instruction to make a DIFFERENT one; then one too-easy or
 * too-hard environment of the SAME skill to avoid. Empty when there is nothing to show.
 */
export function memoryBlock(memory: MemorySelection | null, skill: string): string {
  if (!memory) return "";
  let text = "";
  if (memory.references.length > 0) {
    const examples = memory.references.map((ref, i) =>
      `### Example ${i + 1} (skill: ${ref.skill ?? skill}, win_rate: ${ref.winRate.toFixed(2)}, regret: ${ref.regret.toFixed(2)})\n\`\`\`python\n${ref.codeExcerpt}\n\`\`\``,
    );
    text +=
      "\n\n<REFERENCE_ENVIRONMENTS>\nThese earlier environments were well calibrated for training. Borrow their structure and level of complexity, but make a DIFFERENT game:\n\n" +
      examples.join("\n\n") +
      "\n</REFERENCE_ENVIRONMENTS>\n";
  }
  const negative = memory.negative;
  if (negative && negative.entry.skill === skill) {
    text += `\nDo not write environments like these:\n- ${negative.reason} (win_rate=${negative.entry.winRate.toFixed(2)}): ${negativeName(negative.entry)}\n`;
  }
  return text;
}

function negativeName(entry: MemoryCandidate): string {
  return entry.className ? `class ${entry.className}` : `environment #${entry.environmentId}`;
}

function workbenchMessages(input: DesignerPromptInput): ChatMessage[] {
  const document = input.document === null
    ? ""
    : `Ground the environment in a concept or technique from this reference document. Use the idea; never cite or mention the document.\n\n<REFERENCE_DOCUMENT>\n${input.document}\n</REFERENCE_DOCUMENT>\n\n`;
  return [{ role: "user", content: renderTemplate(loadPrompt("designer-workbench.md"), { document, memory: workbenchMemory(input.memory), skill: input.skill, difficulty: input.difficulty }) }];
}

function workbenchMemory(memory: MemorySelection | null): string {
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
