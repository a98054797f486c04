// The reference recipe's prompts, checked by what they must say (not by their exact sentences),
// and the pure parts of its protocols: the action rule, code extraction with brace repair, hints.
import { describe, expect, it } from "vitest";
import { requestRole } from "../../main/bench/ScriptedBackend.js";
import { firstBoxedContent, extractFirstBoxedAction } from "../../main/rollout/extractAction.js";
import { frameFirstObservation } from "../../main/rollout/agentSystemPrompt.js";
import { parseTextToolCalls, toolSpecs } from "../../main/rollout/toolCalls.js";
import { designerMessages, memoryBlock, stepsForDifficulty } from "../../main/selfplay/designerPrompt.js";
import { extractPythonCode } from "../../main/selfplay/extractCode.js";
import type { MemorySelection } from "../../main/selfplay/selectMemoryReferences.js";
import { toolUseDomains } from "../../main/selfplay/toolUsePromptParts.js";
import { hintLeaksSolution, hintMessages, parseHintReply, screenHint } from "../../main/selfplay/writeHint.js";
import { gameSkills, recipeGameSkills, recipeToolUseSkills, skillDescription, toolUseSkills } from "../../shared/skills.js";

const memory: MemorySelection = {
  references: [{ environmentId: 4, skill: "Optimization", className: "KnapsackEnv", codeExcerpt: "class KnapsackEnv:\n    pass", winRate: 0.5, regret: 0.25 }],
  negative: { entry: { environmentId: 7, skill: "Optimization", className: "TooEasyEnv", codeExcerpt: "", winRate: 0.97, regret: 0 }, reason: "too easy" },
};

describe("skills", () => {
  it("are the reference's nine game skills, six of them in the launchers, and six tool-use skills, each with a description", () => {
    expect(gameSkills.map((s) => s.name)).toHaveLength(9);
    expect(recipeGameSkills).toEqual(["Mathematical Reasoning", "Logical Deduction", "Spatial Reasoning", "Pattern Recognition", "Optimization", "Causal Inference"]);
    for (const name of recipeGameSkills) expect(gameSkills.map((s) => s.name)).toContain(name);
    expect(recipeToolUseSkills).toEqual(["API Orchestration", "Data Retrieval", "State Modification", "Error Recovery", "Tool Selection", "Multi-Step Workflows"]);
    for (const skill of [...gameSkills, ...toolUseSkills]) expect(skill.description.length).toBeGreaterThan(10);
    expect(skillDescription("Causal Inference")).toBe("Understanding cause-effect relationships");
    expect(skillDescription("My Own Skill")).toBeNull();
  });
});

describe("the games designer prompt (corpus)", () => {
  const messages = designerMessages({ document: "Dijkstra's algorithm relaxes edges.\n[Document truncated at ~6000 words]", memory: null, skill: "Optimization", difficulty: "medium" });
  const user = messages[1]!.content;

  it("has a system prompt and the document in a reference block", () => {
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(messages[0]!.content).toMatch(/multi-turn/i);
    expect(user).toContain("<REFERENCE_DOCUMENT>\nDijkstra's algorithm relaxes edges.\n[Document truncated at ~6000 words]\n</REFERENCE_DOCUMENT>");
    expect(requestRole({ messages })).toBe("designer");
  });

  it("states every rule of the reference's interactive contract", () => {
    expect(user).toMatch(/HIDDEN STATE/);
    expect(user).toMatch(/Do not pull a single \\boxed\{answer\} out of the reply, grade it once and terminate/);
    expect(user).toMatch(/Do not state the whole problem in reset\(\)/);
    expect(user).toMatch(/same static task every turn/);
    expect(user).toMatch(/EXECUTES that algorithm step by step/);
    expect(user).toMatch(/Trace TWO different action sequences/);
    expect(user).toContain("def __init__(self, max_turns=12, **kwargs):");
    expect(user).toMatch(/keep every reward in \[0, 1\]/);
    expect(user).toMatch(/PARTIAL reward/);
    expect(user).toContain("re.search(r'\\\\boxed\\{(.+?)\\}', action)");
    expect(user).toMatch(/literal brace must be doubled/);
    expect(user).toMatch(/never mentions the document/);
  });

  it("puts the skill's description beside its name and the steps for the difficulty", () => {
    expect(user).toContain("Target skill: Optimization (Finding optimal solutions under constraints). DIFFICULTY: medium");
    expect(user).toContain("take 3 or more interaction steps");
    expect(stepsForDifficulty("easy")).toBe(2);
    expect(stepsForDifficulty("hard")).toBe(3);
    const easy = designerMessages({ document: "doc", memory: null, skill: "Optimization", difficulty: "easy" })[1]!.content;
    expect(easy).toContain("take 2 or more interaction steps");
  });
});

describe("the games designer prompt without a corpus", () => {
  it("is the separate no-corpus template, paced for the turn limit, with concept ideas of the skill", () => {
    const messages = designerMessages({ document: null, memory: null, skill: "Spatial Reasoning", difficulty: "medium", maxTurns: 20, random: () => 0 });
    const user = messages[1]!.content;
    expect(messages[0]!.role).toBe("system");
    expect(user).not.toContain("<REFERENCE_DOCUMENT>");
    expect(user).not.toContain("max_turns=12");
    expect(user).toContain("def __init__(self, max_turns=20, **kwargs):");
    expect(user).toMatch(/at most 20 turns/);
    expect(user).toMatch(/about 10-15 turns/);
    expect(user).toContain("Spatial Reasoning (Understanding spatial relationships and mental rotation)");
    expect(user).toMatch(/NEVER use input\(\)/);
    expect(user).toMatch(/BRANCHING DECISIONS/);
    expect(user).toMatch(/Win: reward 1\.0, terminated = True/);
    expect(requestRole({ messages })).toBe("designer");
  });
});

describe("memory in the designer prompt", () => {
  it("shows reference environments as fenced code with 'make a DIFFERENT one' and a negative example of the same skill only", () => {
    const block = memoryBlock(memory, "Optimization");
    expect(block).toContain("<REFERENCE_ENVIRONMENTS>");
    expect(block).toContain("```python\nclass KnapsackEnv:\n    pass\n```");
    expect(block).toContain("win_rate: 0.50, regret: 0.25");
    expect(block).toMatch(/DIFFERENT game/);
    expect(block).toContain("too easy (win_rate=0.97): class TooEasyEnv");
    const otherSkill = memoryBlock({ references: [], negative: { ...memory.negative!, entry: { ...memory.negative!.entry, skill: "Causal Inference" } } }, "Optimization");
    expect(otherSkill).toBe("");
    const prompt = designerMessages({ document: "doc", memory, skill: "Optimization", difficulty: "medium" })[1]!.content;
    expect(prompt.endsWith(block)).toBe(true);
  });
});

describe("the tool-use designer prompts", () => {
  it("multi-turn: user messages, per-message criteria, advancing, solvability rules, a sampled domain and task type, no system prompt", () => {
    // Data Retrieval has no more concept ideas than are shown, so the draws are the domain, then the task type.
    const draws = [0.5, 0.99];
    let call = 0;
    const messages = designerMessages({ document: "Mortgage amortisation", memory: null, skill: "Data Retrieval", difficulty: "medium", setting: "toolUse", random: () => draws[call++]! });
    expect(messages.map((m) => m.role)).toEqual(["user"]);
    const user = messages[0]!.content;
    for (const rule of ["self._user_messages", "self._message_criteria", "_advance_if_done", "FALSE AT RESET", "TYPES MATCH", "THE AGENT CAN KNOW EVERY VALUE", "EVERY NEEDED TOOL CAN SUCCEED", "INSTRUCTION AND CRITERION AGREE", "TRACE IT YOURSELF", "DISTRACTOR", "'enum'", "Do NOT import ToolUseBaseEnv"]) {
      expect(user).toContain(rule);
    }
    expect(user).toContain("Data Retrieval (First discover information via query tools, then act on it precisely)");
    expect(user).toContain("SKILL FOCUS: Query Then Act");
    expect(user).toContain(`  ${toolUseDomains[Math.floor(0.5 * toolUseDomains.length)]}`);
    expect(user).toContain("<REFERENCE_SNIPPET>\nMortgage amortisation\n</REFERENCE_SNIPPET>");
    expect(user).toMatch(/TASK VARIANT: with_irrelevant/);
    expect(requestRole({ messages })).toBe("designer");
  });

  it("the task types are weighted execute 3 : read_then_write 2 : missing_value 1 : irrelevant 1", () => {
    const counts: Record<string, number> = {};
    for (let i = 0; i < 7; i++) {
      const draws = [0, (i + 0.5) / 7];
      let call = 0;
      const user = designerMessages({ document: null, memory: null, skill: "Error Recovery", difficulty: "hard", setting: "toolUse", random: () => draws[call++]! })[0]!.content;
      const variant = /TASK VARIANT: (\w+)/.exec(user)![1]!;
      counts[variant] = (counts[variant] ?? 0) + 1;
    }
    expect(counts).toEqual({ execute: 3, read_then_write: 2, missing_value: 1, with_irrelevant: 1 });
  });

  it("single task: the attribute API, stateful tools, the tolerance and the difficulty's call counts", () => {
    const user = designerMessages({ document: "Library lending rules", memory: null, skill: "Tool Selection", difficulty: "easy", setting: "toolUse", toolUseVariant: "singleTask" })[0]!.content;
    for (const rule of ["self._tools", "self._expected_answer", "self._state", "_check_answer()", "0.01", "Do NOT write step()", "NO SINGLE TOOL", "AT LEAST 3 dependent mutations", "DIFFICULTY: easy", "1-2 tool calls"]) expect(user).toContain(rule);
    expect(user).toContain("<REFERENCE_DOCUMENT>\nLibrary lending rules\n</REFERENCE_DOCUMENT>");
  });
});

describe("the agent's first message", () => {
  it("frames the game, gives the observation and asks to reason and box the answer", () => {
    const first = frameFirstObservation("You stand at a door.\n\nHINT: knock");
    expect(first).toMatch(/game/i);
    expect(first).toContain("Observation: You stand at a door.\n\nHINT: knock");
    expect(first).toMatch(/step by step/);
    expect(first).toContain("\\boxed{}");
  });

  it("is the reference's text byte for byte: qwen3_game for a game, the RLVE template for a problem", () => {
    // spade/core/orchestrator.py `_apply_game_template` (an f-string: `\\boxed{{}}` reaches the model as \boxed{}).
    expect(frameFirstObservation("You stand at a door.")).toBe("You are playing a language game. Make valid actions to win.\nObservation: You stand at a door.\nPlease reason step by step, and put your final answer within \\boxed{}.");
    // spade/core/fixed_env_orchestrator.py `_build_initial_prompt("rlve", ...)`: a plain literal, so the doubled braces reach the model.
    expect(frameFirstObservation("What is 6 times 7?", "problem")).toBe("What is 6 times 7?\n\nPlease reason step by step, and put your final answer within \\boxed{{}}.");
  });
});

describe("the reference's action rule", () => {
  it("takes the first \\boxed{} without braces inside", () => {
    expect(extractFirstBoxedAction("I think \\boxed{left} no wait \\boxed{right}.")).toBe("\\boxed{left}");
    expect(extractFirstBoxedAction("\\boxed{\\frac{1}{2}} or \\boxed{3}")).toBe("\\boxed{3}");
    expect(firstBoxedContent("\\boxed{{7}}")).toBe("7");
    expect(firstBoxedContent("\\boxed{\\frac{1}{2}}")).toBe("\\frac{1}{2}");
    expect(extractFirstBoxedAction("  move north  ")).toBe("move north");
  });
});

describe("tool calls written as text", () => {
  it("parses JSON and XML-style blocks and skips what is not a call", () => {
    const calls = parseTextToolCalls('<tool_call>{"name": "ls", "arguments": {"path": "/"}}</tool_call> <tool_call>oops</tool_call><tool_call><function=cd><parameter=path>/tmp</parameter></function></tool_call>', 2);
    expect(calls).toEqual([{ id: "call_2_0", name: "ls", arguments: '{"path":"/"}' }, { id: "call_2_1", name: "cd", arguments: '{"path":"/tmp"}' }]);
    expect(toolSpecs([{ type: "function", function: { name: "ls", description: "list" } }])).toEqual([{ name: "ls", description: "list", parameters: { type: "object", properties: {} } }]);
  });
});

describe("code extraction", () => {
  it("takes the first python block as written (the brace repair runs later, in the sandbox)", () => {
    const reply = "Here:\n```python\nclass AEnv:\n    def reset(self, seed=None):\n        return f\"say \\\\boxed{<move>}\", {}\n```\nand a second block\n```python\nclass BEnv: pass\n```";
    expect(extractPythonCode(reply)).toContain('f"say \\\\boxed{<move>}"');
    expect(extractPythonCode(reply)).toContain("class AEnv");
    expect(extractPythonCode(reply)).not.toContain("class BEnv");
  });
});

describe("hints", () => {
  it("the reference's hint writer: system prompt per setting, the code in a fenced block", () => {
    const games = hintMessages("class AEnv: pass");
    expect(games[0]!.role).toBe("system");
    expect(games[0]!.content).toMatch(/key insight/);
    expect(games[0]!.content).toMatch(/answer format/);
    expect(games[0]!.content).toMatch(/under 100 words/);
    expect(games[1]!.content).toBe("Environment code:\n```python\nclass AEnv: pass\n```");
    const tool = hintMessages("class BEnv: pass", { setting: "toolUse" });
    expect(tool[0]!.content).toMatch(/NEVER write concrete data values/);
    expect(tool[0]!.content).toMatch(/placeholders/);
    expect(tool[0]!.content).toMatch(/under 100 words/);
    expect(requestRole({ messages: games })).toBe("hint");
    expect(parseHintReply('```json\n{"hint": "Go left first."}\n```')).toBe("Go left first.");
    expect(parseHintReply("  Count the odd cells.  ")).toBe("Count the odd cells.");
  });

  it("the leak check catches a hint (written or the environment's own) that gives the answer", () => {
    expect(hintLeaksSolution("Just type \\boxed{open door} first", "open door")).toBe(true);
    expect(hintLeaksSolution("The answer is 4217.", "\\boxed{4217}")).toBe(true);
    expect(hintLeaksSolution("Try numbers near 42170.", "\\boxed{4217}")).toBe(false);
    expect(hintLeaksSolution("Explore before acting.", "open door")).toBe(false);
    expect(screenHint("Say 4217 right away.", "\\boxed{4217}")).toEqual({ text: "Say [redacted] right away.", leaked: true });
    expect(screenHint("Halve the range each time.", "\\boxed{4217}")).toEqual({ text: "Halve the range each time.", leaked: false });
  });
});

describe("grounding documents", () => {
  it("are cut with the reference's truncation marker, and a JSONL corpus prefers orig_doc over text", async () => {
    const { truncateDocument } = await import("../../main/corpus/truncateWords.js");
    expect(truncateDocument("one two three four", 2)).toBe("one two\n[Document truncated at ~2 words]");
    expect(truncateDocument("one two", 2)).toBe("one two");
    const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const { openCorpus } = await import("../../main/corpus/openCorpus.js");
    const dir = mkdtempSync(join(tmpdir(), "spade-origdoc-"));
    try {
      const path = join(dir, "c.jsonl");
      writeFileSync(path, JSON.stringify({ text: "the summary", orig_doc: "the original document" }) + "\n" + JSON.stringify({ text: "only text", orig_doc: "" }) + "\n");
      const corpus = await openCorpus(path);
      expect((await corpus.get(0)).text).toBe("the original document");
      expect((await corpus.get(1)).text).toBe("only text");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
