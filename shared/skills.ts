// The skills a Designer is asked to target, with the descriptions the prompts show beside each
// name. Names and descriptions follow the reference implementation (spade-rl/spade,
// spade/core/game_generator.py for games, spade/core/prompts/tool_use_template.py for tool use);
// the example concepts are paraphrased in this project's own words.

export interface SkillDefinition {
  name: string;
  /** One line shown beside the name in the Designer's prompt. */
  description: string;
  /** A few concept ideas the prompt may offer; the Designer may invent its own. */
  examples: string[];
}

/** The nine cognitive skills of the reference's game generator. */
export const gameSkills: readonly SkillDefinition[] = [
  { name: "Pattern Recognition", description: "Identifying patterns in sequences, numbers, or text", examples: ["decode a cipher one letter mapping at a time", "find the rule that turns one grid into another", "guess a hidden code from positional feedback", "sweep a small minefield using number clues"] },
  { name: "Logical Deduction", description: "Drawing conclusions from given premises and rules", examples: ["question suspects and examine evidence, then accuse", "fill a constraint grid by asking yes/no questions", "escape room where each object reveals the next clue"] },
  { name: "Strategic Planning", description: "Multi-step planning and resource management", examples: ["allocate a budget over turns to reach a population goal", "route goods through a supply network", "place defences before waves arrive"] },
  { name: "Mathematical Reasoning", description: "Solving mathematical problems and equations", examples: ["walk a number maze whose cells apply operations to reach a target", "adjust coefficients over turns until equations balance", "bid on items with hidden values under a budget"] },
  { name: "Spatial Reasoning", description: "Understanding spatial relationships and mental rotation", examples: ["find the exit of a grid maze with traps", "push boxes onto targets in a warehouse grid", "steer a robot around obstacles with limited fuel"] },
  { name: "Causal Inference", description: "Understanding cause-effect relationships", examples: ["choose which variable to test each turn and infer the hidden rule", "diagnose a broken machine by testing parts", "toggle switches and measure outputs to find a faulty gate"] },
  { name: "Memory Recall", description: "Remembering and utilizing past information", examples: ["hear testimony over several turns, then find the contradiction", "collect a list revealed one item at a time, then act on all of it"] },
  { name: "Optimization", description: "Finding optimal solutions under constraints", examples: ["take or skip arriving items to maximise value under a weight limit", "assign jobs to machines to minimise completion time", "configure production lines before a deadline"] },
  { name: "Language Understanding", description: "Understanding and manipulating language", examples: ["explore a house and interpret riddles to find a treasure", "decode phrases by talking to villagers", "fill a word grid from clues given over turns"] },
];

/** The six game skills configured in the reference's games launchers (`cmd/games/train_spade_*.sh`). */
export const recipeGameSkills: readonly string[] = ["Mathematical Reasoning", "Logical Deduction", "Spatial Reasoning", "Pattern Recognition", "Optimization", "Causal Inference"];

/** The six tool-use skills of the reference (`cmd/tool_use/_train_spade_blend.sh`). */
export const toolUseSkills: readonly SkillDefinition[] = [
  { name: "API Orchestration", description: "Chain multiple tool calls that mutate state sequentially", examples: ["check a balance, transfer funds, confirm the new balance", "find flights, book one, add the passenger, confirm"] },
  { name: "Data Retrieval", description: "First discover information via query tools, then act on it precisely", examples: ["look a customer up, read their orders, report the latest one", "query records that match a filter and report an aggregate"] },
  { name: "State Modification", description: "Execute a sequence of state-changing operations where each depends on prior state", examples: ["create an account, grant permissions, add it to a group, verify", "start a vehicle's systems in order before driving"] },
  { name: "Error Recovery", description: "Handle tool failures, verify state before acting, retry with corrections", examples: ["a move fails with 'not found': search for the right path and retry", "detect a permission error, raise access, retry"] },
  { name: "Tool Selection", description: "Choose correct tool from alternatives based on current state", examples: ["check where you are before deciding to move or act", "read an item's type and pick the matching processing tool"] },
  { name: "Multi-Step Workflows", description: "Execute ordered sequences where later steps depend on results of earlier steps", examples: ["search a catalogue, check stock, reserve, pay, confirm", "connect, query, filter, transform, write, validate"] },
];

export const recipeToolUseSkills: readonly string[] = toolUseSkills.map((skill) => skill.name);

/** The definition of a skill by name (games first, then tool use), or null for a skill of the user's own. */
export function findSkill(name: string): SkillDefinition | null {
  return gameSkills.find((skill) => skill.name === name) ?? toolUseSkills.find((skill) => skill.name === name) ?? null;
}

/** The description shown beside a skill's name; a user's own skill has none. */
export function skillDescription(name: string): string | null {
  return findSkill(name)?.description ?? null;
}
