// The no-corpus games template's worked example and answer-checking helper (this project's own, in
// the roles of the reference's trading game and verify_answer): both are taken out of the rendered
// prompt and run in the real sandbox, so the designer is never shown code that does not work.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { designerMessages } from "../../main/selfplay/designerPrompt.js";
import { validateEnvironment } from "../../main/validator/validateEnvironment.js";
import { createTestPool } from "../support/sandboxTestPool.js";

const prompt = designerMessages({ document: null, memory: null, skill: "Spatial Reasoning", difficulty: "medium", maxTurns: 20, random: () => 0 })[1]!.content;
const blocks = [...prompt.matchAll(/```python\n([\s\S]*?)```/g)].map((match) => match[1]!);
const interfaceBlock = blocks[0]!;
const example = blocks[1]!;
// The interface's imports and helper, then the worked example: the program a designer would write.
const imports = interfaceBlock.slice(0, interfaceBlock.indexOf("class YourDescriptiveNameEnv"));
const program = imports + "\n" + example;

let pool: SandboxPool;
beforeAll(async () => {
  pool = await createTestPool({ stepTimeoutMs: 5_000 });
});
afterAll(async () => {
  await pool?.dispose();
});

describe("the no-corpus template", () => {
  it("shows the answer-checking helper in the interface and tells the designer to use it, and a worked example of another game", () => {
    expect(blocks).toHaveLength(2);
    expect(interfaceBlock).toContain("from fractions import Fraction");
    expect(interfaceBlock).toContain("def check_answer(given, expected, tolerance=1e-6):");
    expect(interfaceBlock).toContain("check_answer(given, expected), never with ==");
    expect(prompt).toMatch(/A WORKED EXAMPLE .*yours must be a DIFFERENT game/);
    expect(example).toContain("class LanternCaveEnv:");
    expect(example).toContain("check_answer(");
    expect(prompt).not.toMatch(/\{\{\w+\}\}/); // every placeholder was filled
  });

  it("its worked example validates under the reference's rule and this project's checks alike, with no warnings", async () => {
    const report = await validateEnvironment(pool, program, { strict: true });
    expect(report.error).toBeNull();
    expect(report.valid).toBe(true);
    expect(report.checks.every((check) => check.ok)).toBe(true);
    expect(report.className).toBe("LanternCaveEnv");
  });

  it("its worked example is won by following solution(), and lost without searching for oil", async () => {
    const session = await pool.open(program);
    try {
      for (const seed of [0, 7, 123]) {
        await session.reset(seed);
        const solution = await session.solution();
        const flasks = JSON.parse(/chambers (\[[^\]]*\])/.exec(solution)![1]!) as number[];
        const sum = /say (\d+)/.exec(solution)![1]!;
        const plan: string[] = [];
        for (let chamber = 0; chamber < 5; chamber++) {
          if (flasks.includes(chamber)) plan.push("search");
          if (chamber === 4) plan.push(`say ${sum}`);
          plan.push("forward");
        }
        const play = async (actions: string[]) => {
          await session.reset(seed);
          let last = { reward: 0, terminated: false };
          for (const action of actions) {
            last = await session.step(`\\boxed{${action}}`);
            if (last.terminated) break;
          }
          return last;
        };
        expect(await play(plan)).toMatchObject({ reward: 1, terminated: true });
        expect(await play(["forward", "forward", "forward", "forward", `say ${sum}`, "forward"])).toMatchObject({ reward: 0, terminated: true });
      }
    } finally {
      await session.close();
    }
  });

  it("its helper accepts the same answer written another way and nothing else", async () => {
    const probe = `${imports}
class CheckEnv:
    CASES = [("7", "7.0"), (" 14/2 ", 7), ("1,000", "1000"), ("North  Gate", "north gate"), ("0.5", "1/2"),
             ("8", 7), ("seven", 7), ("1/0", 1), ("", "0")]
    def reset(self, seed=None):
        return " ".join("1" if check_answer(a, b) else "0" for a, b in self.CASES), {}
    def step(self, action):
        return "", 0.0, True, False, {}
    def solution(self):
        return "none"
`;
    const session = await pool.open(probe);
    try {
      expect((await session.reset(0)).observation).toBe("1 1 1 1 1 0 0 0 0");
    } finally {
      await session.close();
    }
  });
});
