import type { EnvSession } from "../sandbox/EnvSession.js";
import { describeError } from "./ValidationRun.js";

/** The most actions a solution is played for. */
export const MAX_SOLUTION_ACTIONS = 64;

/**
 * The actions a `solution()` text spells out, in order: each `\boxed{...}`, else each
 * `<answer>...</answer>` or `<tool_call>...</tool_call>` block, else each non-empty line as a
 * boxed action. A goal description yields actions that do not solve the game, which is recorded as such.
 */
export function solutionActions(solution: string): string[] {
  const boxed = [...solution.matchAll(/\\boxed\{([^{}]*)\}/g)].map((match) => match[0]);
  if (boxed.length > 0) return boxed.slice(0, MAX_SOLUTION_ACTIONS);
  const blocks = [...solution.matchAll(/<(answer|tool_call)>[\s\S]*?<\/\1>/g)].map((match) => match[0]);
  if (blocks.length > 0) return blocks.slice(0, MAX_SOLUTION_ACTIONS);
  return solution
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .slice(0, MAX_SOLUTION_ACTIONS)
    .map((line) => `\\boxed{${line}}`);
}

/**
 * Plays the environment's own `solution()` from `reset(seed)`: it solves the game when the
 * episode terminates with reward 1 (SPADE's full success) within the solution's actions. Never
 * throws: an error of the environment is a solution that does not solve, with the reason.
 */
export async function playSolution(session: EnvSession, seed: number): Promise<{ solves: boolean; detail: string }> {
  try {
    await session.reset(seed);
    const solution = await session.solution();
    const actions = solutionActions(solution);
    if (actions.length === 0) return { solves: false, detail: "solution() names no action to play" };
    await session.reset(seed);
    for (const [index, action] of actions.entries()) {
      const step = await session.step(action);
      if (step.terminated || step.truncated) {
        const solves = step.terminated && step.reward >= 1;
        return { solves, detail: `after ${index + 1} of ${actions.length} solution actions the episode ${step.terminated ? "terminated" : "was truncated"} with reward ${step.reward}` };
      }
    }
    return { solves: false, detail: `the episode did not end after the solution's ${actions.length} actions` };
  } catch (error) {
    return { solves: false, detail: `playing the solution failed: ${describeError(error).detail}` };
  }
}
