// Environment suites: held-out .py environments played without hints in the real sandbox, through
// `spade eval` with the OpenAI backend against a fake server on loopback (one sandbox pool: slow to start).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalCommand } from "../../main/cli/commands/evalCommand.js";
import { runCommand } from "../support/runCommand.js";
import { completionBody, startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fakeOpenAiServer.js";

const suiteDir = join(import.meta.dirname, "..", "fixtures", "evalEnvironments");

/** Opens doors; names the number one too high (half credit). */
function agentReply(observation: string): string {
  if (observation.includes("locked door")) return "\\boxed{open}";
  const number = /Repeat this number: (\d+)/.exec(observation);
  return number ? `\\boxed{${Number(number[1]) + 1}}` : "\\boxed{?}";
}

let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await startFakeOpenAiServer((request) => {
    const messages = request.body.messages as Array<{ role: string; content: string }>;
    return { json: completionBody(agentReply(messages.filter((m) => m.role === "user").at(-1)!.content)) };
  });
});
afterAll(() => server?.close());

describe("environment suites", () => {
  it("spade eval --json plays each environment without hints and reports mean return and win rate", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-eval-env-"));
    const config = join(dir, "eval.json");
    writeFileSync(config, JSON.stringify({ backend: { kind: "openai", baseUrl: server.baseUrl, model: "m", stream: false } }));
    const { code, stdout } = await runCommand(evalCommand, ["--suite", suiteDir, "--config", config, "--plays", "3", "--json"]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ suite: suiteDir, kind: "environments", n: 2, plays: 6, meanReturn: 0.75, winRate: 1 });
    expect(report.items.map((item: Record<string, unknown>) => [item.file, item.className, item.plays, item.meanReturn, item.winRate, item.errors])).toEqual([
      ["a_door.py", "DoorEnv", 3, 1, 1, 0],
      ["b_count.py", "CountEnv", 3, 0.5, 1, 0],
    ]);
    const prompts = server.requests.flatMap((r) => (r.body.messages as Array<{ content: string }>).map((m) => m.content));
    expect(prompts.some((p) => p.includes("Repeat this number"))).toBe(true);
    expect(prompts.some((p) => p.includes("HINT:"))).toBe(false);
  });
});
