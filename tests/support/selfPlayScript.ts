// The scripted designer, hint writer and agent of the self-play tests. Replies depend only on the
// request's content (never on call order), so a run replayed after a kill gets the same answers.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ChatRequest } from "../../main/llm/LlmBackend.js";
import { requestRole } from "../../main/bench/ScriptedBackend.js";

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`../fixtures/selfplay/${name}`, import.meta.url)), "utf8");

export const envCode = {
  magic: fixture("magic_word.py"),
  riddle: fixture("riddle_no_hint.py"),
  hang: fixture("hangs_in_step.py"),
  /** The magic-word game with its names changed: a near-duplicate. */
  copy: fixture("magic_word.py").replaceAll("MagicWordEnv", "SecretWordEnv").replaceAll("token", "ticket").replaceAll("turn", "move"),
  /** The magic-word game lying in solution() and keeping the answer in its hint (buying regret with its own hint). */
  liar: fixture("magic_word.py")
    .replace('return "\\\\boxed{open}"', 'return "\\\\boxed{please}"')
    .replace('return "Doors like polite, short words."', 'return "The magic word is open."'),
  /** The magic-word game whose true solution solves it and whose hint gives that solution away. */
  revealing: fixture("magic_word.py").replace('return "Doors like polite, short words."', 'return "Just say open."'),
  broken: "class BrokenEnv:\n    def reset(self, seed=None)\n        return 'x', {}\n",
};

export const scriptedHint = "Think about small, polite words.";

const block = (code: string) => `Here is the environment.\n\n\`\`\`python\n${code}\`\`\`\n`;

/** `DOC:<kind>` in the grounding document picks the environment the designer writes. */
export function designerReply(request: ChatRequest): string {
  if (requestRole(request) === "repair") return block(envCode.magic);
  const prompt = request.messages.map((message) => message.content).join("\n");
  const kind = /DOC:(\w+)/.exec(prompt)?.[1] ?? "magic";
  const code = envCode[kind as keyof typeof envCode];
  if (code === undefined) throw new Error(`scripted designer: unknown DOC:${kind}`);
  return block(code);
}

/**
 * The agent: with the hint it always solves the game; without, it solves the magic word only for an
 * even token and half-solves the riddle only for an even number.
 */
export function agentReply(request: ChatRequest): string {
  const first = request.messages.find((message) => message.role === "user")?.content ?? "";
  const hinted = first.includes("\n\nHINT: ");
  if (first.includes("Say \\boxed{go}")) return "\\boxed{go}";
  const token = /Token (\d+)/.exec(first);
  if (token) return hinted || Number(token[1]) % 2 === 0 ? "I will say \\boxed{open}" : "\\boxed{nope}";
  const riddle = /Riddle (\d)/.exec(first);
  if (riddle) return hinted || riddle[1] === "0" ? "\\boxed{half}" : "\\boxed{nope}";
  return "\\boxed{?}";
}

export function selfPlayReply(request: ChatRequest): string {
  const role = requestRole(request);
  if (role === "designer" || role === "repair") return designerReply(request);
  if (role === "hint") return scriptedHint;
  return agentReply(request);
}

/** Whether the scripted agent wins an unhinted play, given the first observation it saw. */
export function unhintedWins(firstObservation: string): boolean {
  const token = /Token (\d+)/.exec(firstObservation);
  if (token) return Number(token[1]) % 2 === 0;
  return /Riddle 0/.test(firstObservation);
}
