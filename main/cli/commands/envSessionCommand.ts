import { createInterface } from "node:readline";
import { episodeReturn, withHint, type StepResult } from "../../../shared/environment.js";
import { extractFirstBoxedAction } from "../../rollout/extractAction.js";
import type { Command } from "../Command.js";
import { parseCommandArgs, parseIntegerOption } from "../parseCommandArgs.js";
import { UsageError } from "../UsageError.js";
import { readEnvironmentFile } from "./envFile.js";

/**
 * `spade env session <file.py>`: one environment held open in the sandbox for another program (the
 * verl interaction of `spade export --format verl`), one JSON request per stdin line, one JSON
 * answer per stdout line:
 * - `{"op": "reset", "seed": n, "hint": false}` -> `{"observation", "info"}`
 * - `{"op": "step", "reply": "..."}` -> `{"observation", "reward", "terminated", "truncated", "info", "return"}`:
 *   a text environment gets the reply's first `\boxed{}` as the agent loop sends it, a tool-use one
 *   the reply as it is; an exception in `step()` scores -1 and ends the episode (as the reference);
 *   the turn limit truncates.
 * - anything else, or a sandbox failure: `{"error": "..."}`.
 */
export const envSessionCommand: Command = {
  name: "env session",
  usage: "env session <file.py> [--max-turns <n>]",
  summary: "hold one environment open in the sandbox, driven by JSON lines on stdin (reset, step)",
  async run(argv) {
    const { values, positionals } = parseCommandArgs("env session", argv, { "max-turns": { type: "string", valueName: "n", help: "Agent replies after which an episode is truncated; the game's own max_turns is capped at it, as a run's plays cap it.", defaultText: "25" } });
    const maxTurns = parseIntegerOption("env session", "max-turns", values["max-turns"]) ?? 25;
    if (maxTurns < 1) throw new UsageError(`spade env session: --max-turns must be at least 1, got ${maxTurns}`);
    const { code } = readEnvironmentFile("env session", positionals);
    const { SandboxPool } = await import("../../sandbox/SandboxPool.js");
    const { EnvironmentCodeError, EnvironmentContractError } = await import("../../sandbox/errors.js");
    const pool = await SandboxPool.create({ size: 1 });
    const session = await pool.open(code, { maxTurns });
    let turns = 0;
    let last: StepResult | undefined;
    const answer = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
    try {
      for await (const line of createInterface({ input: process.stdin })) {
        if (!line.trim()) continue;
        try {
          const request = JSON.parse(line) as { op?: unknown; seed?: unknown; hint?: unknown; reply?: unknown };
          if (request.op === "reset") {
            if (!Number.isSafeInteger(request.seed)) throw new Error(`reset needs an integer "seed", got ${JSON.stringify(request.seed)}`);
            turns = 0;
            last = undefined;
            const reset = await session.reset(request.seed as number);
            const hint = request.hint === true ? await session.hint() : null;
            if (request.hint === true && hint === null) throw new Error(`${session.className} defines no hint()`);
            answer({ observation: hint === null ? reset.observation : withHint(reset.observation, hint), info: reset.info });
          } else if (request.op === "step") {
            if (typeof request.reply !== "string") throw new Error('step needs a string "reply"');
            turns++;
            const action = session.kind === "text" ? extractFirstBoxedAction(request.reply) : request.reply;
            try {
              last = await session.step(action);
            } catch (error) {
              if (!(error instanceof EnvironmentCodeError || error instanceof EnvironmentContractError)) throw error;
              last = { observation: `Error: ${error.message}`, reward: -1, terminated: true, truncated: false, info: { stepError: true } };
            }
            const truncated = last.truncated || (!last.terminated && turns >= maxTurns);
            answer({ ...last, truncated, return: episodeReturn(last) });
          } else {
            throw new Error(`unknown op ${JSON.stringify(request.op)}: expected "reset" or "step"`);
          }
        } catch (error) {
          answer({ error: error instanceof Error ? error.message : String(error) });
        }
      }
      return 0;
    } finally {
      await session.close();
      await pool.dispose();
    }
  },
};
